//! Macros for the vocabularies that travel as plain strings.
//!
//! An *open* vocabulary (tool kinds, fault points) is one a peer may extend:
//! a value this version does not know must still deserialize, or a newer
//! implementation would be refused for advertising something new. It gets an
//! `Unknown(String)` variant that keeps the text verbatim. A *closed*
//! vocabulary ([`crate::ErrorCode`]) has no such variant: its `parse`
//! returns an `Option`, and a value outside it is refused on the wire.

/// An open string vocabulary: the listed values plus `Unknown(String)`, with
/// `as_str`, `parse`, `Display`, `FromStr`, serde as a string and a JSON
/// Schema of a string whose `examples` are the known values.
macro_rules! open_vocabulary {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this version does not know, kept verbatim so that it
            /// round-trips.
            Unknown(String),
        }

        impl $name {
            /// Every value this version knows, in declaration order.
            pub const KNOWN: &'static [$name] = &[$($name::$variant),+];

            /// The wire text.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $text, )+
                    $name::Unknown(text) => text,
                }
            }

            /// The value for `text`; never fails, see `Unknown`.
            pub fn parse(text: &str) -> $name {
                match text {
                    $( $text => $name::$variant, )+
                    other => $name::Unknown(other.to_owned()),
                }
            }

            /// Whether this version knows the value.
            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Unknown(_))
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = ::std::convert::Infallible;
            fn from_str(text: &str) -> Result<$name, Self::Err> {
                Ok($name::parse(text))
            }
        }

        $crate::strings::string_serde!($name);
    };
}

/// Serde as a string (through `Display` and `parse`) and a JSON Schema of a
/// string with the known values as `examples`, for a type with `parse(&str)
/// -> Self` and `KNOWN`.
macro_rules! string_serde {
    ($name:ident) => {
        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<$name, D::Error> {
                let text = <::std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                Ok($name::parse(&text))
            }
        }

        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                let known: Vec<String> = $name::KNOWN.iter().map(|v| v.to_string()).collect();
                ::schemars::json_schema!({
                    "type": "string",
                    "description": concat!(
                        "Open vocabulary: the examples are the values toolpass/1 defines; ",
                        "other strings are allowed and must be kept, not rejected."
                    ),
                    "examples": known,
                })
            }
        }
    };
}

/// A closed string vocabulary: `Copy` variants with `ALL`, `as_str`,
/// `parse -> Option`, `description` and `Display`. Variants take doc
/// comments only: they are the descriptions, so the docs, the schema and
/// IMPLEMENTING.md's list are one text.
macro_rules! closed_vocabulary {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[doc = $doc:literal])+ $variant:ident => $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[doc = $doc])+ $variant, )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The wire text.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }

            /// The value for `text`, or `None` for text this version does not
            /// define.
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $( $text => Some($name::$variant), )+
                    _ => None,
                }
            }

            /// What the value means: its doc comment as one line.
            pub fn description(self) -> String {
                let lines: &[&str] = match self {
                    $( $name::$variant => &[$($doc),+], )+
                };
                lines.iter().map(|line| line.trim()).collect::<Vec<_>>().join(" ")
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

pub(crate) use {closed_vocabulary, open_vocabulary, string_serde};
