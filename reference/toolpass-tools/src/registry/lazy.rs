//! A tool registered as a factory: built on first use, once, however many
//! lookups race for it (Qwen's `ensureTool` and its in-flight promises).

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use crate::tool::Tool;

/// What builds a tool. A failure is a message naming what went wrong; the
/// next lookup tries again, as Qwen's `ensureTool` forgets a rejected
/// promise.
pub type Factory = Box<dyn Fn() -> Result<Arc<dyn Tool>, String> + Send + Sync>;

/// A tool not built yet.
pub(super) struct Lazy {
    factory: Factory,
    /// The built tool. The lock is held while the factory runs, so a
    /// second lookup waits for the first one's tool instead of building
    /// its own: JavaScript shares one promise, Rust shares one lock.
    built: Mutex<Option<Arc<dyn Tool>>>,
}

impl fmt::Debug for Lazy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lazy").finish_non_exhaustive()
    }
}

impl Lazy {
    pub(super) fn new(factory: Factory) -> Self {
        Lazy {
            factory,
            built: Mutex::new(None),
        }
    }

    /// The tool, built now if nobody has built it.
    pub(super) fn load(&self) -> Result<Arc<dyn Tool>, String> {
        // A factory that panicked left nothing behind: the next lookup
        // builds afresh.
        let mut built = self.built.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(tool) = built.as_ref() {
            return Ok(Arc::clone(tool));
        }
        let tool = (self.factory)()?;
        *built = Some(Arc::clone(&tool));
        Ok(tool)
    }
}
