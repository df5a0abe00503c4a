//! The reference tool layer: the Tool/Invocation split, the registry, the read
//! cache, the text codec at the file boundary, atomic writes and the tools
//! themselves.
//!
//! Nothing lives here yet: issue 4 fills it. The pure decisions it will call
//! (where an edit lands, what the file becomes) are in `toolpass-core`.
