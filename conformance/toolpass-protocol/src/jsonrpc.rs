//! The JSON-RPC 2.0 envelope: requests, responses, notifications, ids and
//! protocol-level errors.
//!
//! A message is classified by looking at the members of a JSON object
//! (`method`, `id`, `result`, `error`), never by trying serde variants in
//! turn: an untagged enum would turn every malformed line into "did not match
//! any variant", and the runner must say *what* is wrong with a peer's line.

use serde::de::{self, DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind};
use crate::method::{Method, NotificationMethod};
use crate::request_id::RequestId;
use crate::response_error::ResponseError;

/// The value of the `jsonrpc` member that every message carries.
pub const JSONRPC_VERSION: &str = "2.0";

/// One line on the wire: a request, a response or a notification.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A call that expects a [`Response`] with the same id.
    Request(Request),
    /// The answer to a request.
    Response(Response),
    /// A one-way message: no id, no answer.
    Notification(Notification),
}

/// A call from one side to the other.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Echoed by the response.
    pub id: RequestId,
    /// The method name, one of [`crate::method`]'s constants for toolpass/1.
    pub method: String,
    /// The parameters; `None` when the member is absent or `null`.
    pub params: Option<Value>,
}

/// A one-way message, such as `toolpass/notice`.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// The method name.
    pub method: String,
    /// The parameters; `None` when the member is absent or `null`.
    pub params: Option<Value>,
}

/// The answer to a request: a result or an error, never both.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The request's id. `None` is a `null` id, which JSON-RPC uses when the
    /// request was too broken to read its id.
    pub id: Option<RequestId>,
    /// The `result` member, or the `error` member.
    pub result: Result<Value, ResponseError>,
}

impl Request {
    /// A request for method `M`.
    pub fn new<M: Method>(id: impl Into<RequestId>, params: &M::Params) -> Request {
        Request {
            id: id.into(),
            method: M::NAME.to_owned(),
            params: Some(to_value(params)),
        }
    }

    /// Whether this request calls method `M`.
    pub fn is<M: Method>(&self) -> bool {
        self.method == M::NAME
    }

    /// The params as method `M`'s type. Absent params read as `{}`, so a
    /// method whose params are all optional accepts a bare request.
    ///
    /// The error is the -32602 answer to send back; it names the method and
    /// what serde found wrong (an unknown config key, a missing field).
    pub fn params<M: Method>(&self) -> Result<M::Params, ResponseError> {
        if !self.is::<M>() {
            return Err(ResponseError::invalid_params(
                &self.method,
                format_args!("expected a {} request", M::NAME),
            ));
        }
        decode_params::<M::Params>(self.params.as_ref())
            .map_err(|e| ResponseError::invalid_params(M::NAME, e))
    }

    /// [`Request::params`], moving the strings out of the request instead
    /// of copying them (a call's arguments may carry a whole file); the
    /// request's params are gone afterwards.
    ///
    /// # Errors
    /// As [`Request::params`].
    pub fn take_params<M: Method>(&mut self) -> Result<M::Params, ResponseError> {
        if !self.is::<M>() {
            return self.params::<M>();
        }
        let params = self
            .params
            .take()
            .unwrap_or_else(|| Value::Object(Map::new()));
        serde_json::from_value(params).map_err(|e| ResponseError::invalid_params(M::NAME, e))
    }
}

impl Notification {
    /// A notification for method `N`.
    pub fn new<N: NotificationMethod>(params: &N::Params) -> Notification {
        Notification {
            method: N::NAME.to_owned(),
            params: Some(to_value(params)),
        }
    }

    /// Whether this is an `N` notification.
    pub fn is<N: NotificationMethod>(&self) -> bool {
        self.method == N::NAME
    }

    /// The params as notification `N`'s type.
    pub fn params<N: NotificationMethod>(&self) -> Result<N::Params, Error> {
        if !self.is::<N>() {
            return Err(Error::new(
                ErrorKind::InvalidNotification,
                format!("expected a {} notification, got {}", N::NAME, self.method),
            ));
        }
        decode_params::<N::Params>(self.params.as_ref()).map_err(|e| {
            Error::with_source(
                ErrorKind::InvalidNotification,
                format!("invalid params for {}", N::NAME),
                e,
            )
        })
    }
}

impl Response {
    /// A successful answer to a method `M` request.
    pub fn ok<M: Method>(id: RequestId, result: &M::Result) -> Response {
        Response {
            id: Some(id),
            result: Ok(to_value(result)),
        }
    }

    /// A protocol-level failure. `id` is `None` only when the request's id
    /// could not be read.
    pub fn error(id: Option<RequestId>, error: ResponseError) -> Response {
        Response {
            id,
            result: Err(error),
        }
    }

    /// The result as method `M`'s type: [`ErrorKind::ErrorResponse`] when the
    /// peer answered with an error, [`ErrorKind::InvalidResult`] when the
    /// result does not have `M`'s shape.
    pub fn decode<M: Method>(&self) -> Result<M::Result, Error> {
        match &self.result {
            Err(error) => Err(Error::error_response(M::NAME, error.clone())),
            Ok(value) => M::Result::deserialize(value).map_err(|e| {
                Error::with_source(
                    ErrorKind::InvalidResult,
                    format!("invalid result for {}", M::NAME),
                    e,
                )
            }),
        }
    }
}

impl From<Request> for Message {
    fn from(request: Request) -> Message {
        Message::Request(request)
    }
}

impl From<Response> for Message {
    fn from(response: Response) -> Message {
        Message::Response(response)
    }
}

impl From<Notification> for Message {
    fn from(notification: Notification) -> Message {
        Message::Notification(notification)
    }
}

impl Message {
    /// Classifies a JSON value as a JSON-RPC message. The error says what is
    /// missing or wrong, in a sentence fragment.
    pub(crate) fn from_value(value: Value) -> Result<Message, String> {
        let Value::Object(mut object) = value else {
            return Err(match value {
                Value::Array(_) => "a JSON-RPC batch (array), which toolpass/1 does not use".into(),
                other => format!("a JSON {}, not an object", json_type(&other)),
            });
        };
        match object.get("jsonrpc") {
            Some(Value::String(v)) if v == JSONRPC_VERSION => {}
            Some(other) => return Err(format!("\"jsonrpc\" is {other}, expected \"2.0\"")),
            None => return Err("no \"jsonrpc\": \"2.0\" member".into()),
        }
        let id = object.remove("id");
        if let Some(method) = object.remove("method") {
            let Value::String(method) = method else {
                return Err(format!(
                    "\"method\" is a {}, not a string",
                    json_type(&method)
                ));
            };
            if object.contains_key("result") || object.contains_key("error") {
                return Err("both \"method\" and \"result\" or \"error\"".into());
            }
            let params = match object.remove("params") {
                None | Some(Value::Null) => None,
                Some(p @ (Value::Object(_) | Value::Array(_))) => Some(p),
                Some(other) => {
                    return Err(format!(
                        "\"params\" is a {}, not an object or array",
                        json_type(&other)
                    ));
                }
            };
            return Ok(match id {
                None => Message::Notification(Notification { method, params }),
                Some(id) => Message::Request(Request {
                    id: read_id(id)?,
                    method,
                    params,
                }),
            });
        }
        let result = match (object.remove("result"), object.remove("error")) {
            (Some(_), Some(_)) => return Err("both \"result\" and \"error\"".into()),
            (Some(result), None) => Ok(result),
            (None, Some(error)) => Err(ResponseError::deserialize(&error)
                .map_err(|e| format!("\"error\" is not {{code, message}}: {e}"))?),
            (None, None) => return Err("no \"method\", \"result\" or \"error\" member".into()),
        };
        let id = match id {
            None => return Err("a response without an \"id\"".into()),
            Some(Value::Null) => None,
            Some(id) => Some(read_id(id)?),
        };
        Ok(Message::Response(Response { id, result }))
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Borrowed mirrors of the wire shape fix the member order (`jsonrpc`
        // first) without `flatten`.
        #[derive(Serialize)]
        struct WireRequest<'a> {
            jsonrpc: &'static str,
            id: &'a RequestId,
            method: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            params: Option<&'a Value>,
        }
        #[derive(Serialize)]
        struct WireNotification<'a> {
            jsonrpc: &'static str,
            method: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            params: Option<&'a Value>,
        }
        #[derive(Serialize)]
        struct WireResponse<'a> {
            jsonrpc: &'static str,
            id: Option<&'a RequestId>,
            #[serde(skip_serializing_if = "Option::is_none")]
            result: Option<&'a Value>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<&'a ResponseError>,
        }
        match self {
            Message::Request(r) => WireRequest {
                jsonrpc: JSONRPC_VERSION,
                id: &r.id,
                method: &r.method,
                params: r.params.as_ref(),
            }
            .serialize(serializer),
            Message::Notification(n) => WireNotification {
                jsonrpc: JSONRPC_VERSION,
                method: &n.method,
                params: n.params.as_ref(),
            }
            .serialize(serializer),
            Message::Response(r) => WireResponse {
                jsonrpc: JSONRPC_VERSION,
                id: r.id.as_ref(),
                result: r.result.as_ref().ok(),
                error: r.result.as_ref().err(),
            }
            .serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Message, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Message::from_value(value).map_err(|e| de::Error::custom(format!("not JSON-RPC: {e}")))
    }
}

fn read_id(id: Value) -> Result<RequestId, String> {
    RequestId::deserialize(&id).map_err(|_| format!("\"id\" is {id}, not a string or an integer"))
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

pub(crate) fn decode_params<P: DeserializeOwned>(
    params: Option<&Value>,
) -> Result<P, serde_json::Error> {
    match params {
        Some(value) => P::deserialize(value),
        None => P::deserialize(&Value::Object(Map::new())),
    }
}

/// Serializes one of this crate's wire types.
///
/// `Method` and `NotificationMethod` tie params and results to this crate's
/// types, whose derived `Serialize` impls only write string-keyed maps and
/// never fail, so a failure here is a bug in this crate, not bad input.
fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("toolpass wire types always serialize")
}
