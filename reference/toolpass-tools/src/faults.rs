//! Fault points: failures a conformance scenario arms through
//! `toolpass/fault` so the windows a tool layer must guard can be tested
//! deterministically.
//!
//! - `fs.stat`: the next stat of a file fails with `EACCES`; a prior-read
//!   check must then fail closed.
//! - `write.before_commit`: between a write's last freshness check and its
//!   commit, another writer appends [`CONCURRENT_WRITE`] to the file; the
//!   write must notice, refuse, and leave the other writer's bytes.
//! - `declarations.update`: the update that publishes a reveal to the
//!   model's declaration list fails; `tool_search` must take the reveal
//!   back and say so.
//! - `mcp.disconnect`: the connection of the next MCP call drops before
//!   the call is sent (its server is shut down), so a scenario can check
//!   what a dropped connection clears and when the call is replayed.
//! - `call.park`: the next call parks when it starts executing, sends one
//!   update, and waits until it is cancelled, so a scenario can cancel a
//!   call in flight deterministically (the scheduler does the parking).
//! - `call.rendezvous`: armed `times: N`, the next N calls to start
//!   executing each wait until all N have started, so a scenario proves
//!   that the calls of a batch run at once by their effect, not by a
//!   clock: calls run one after another never meet, and each fails after
//!   [`RENDEZVOUS_WAIT`] saying so.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The bytes the simulated other writer of `write.before_commit` appends.
pub const CONCURRENT_WRITE: &str = "toolpass: concurrent write\n";

/// A point where a fault can be injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultPoint {
    /// `fs.stat`.
    FsStat,
    /// `write.before_commit`.
    WriteBeforeCommit,
    /// `declarations.update`.
    DeclarationsUpdate,
    /// `mcp.disconnect`.
    McpDisconnect,
    /// `call.park`: the next call parks when it starts executing until it
    /// is cancelled (or the client's input ends).
    CallPark,
    /// `call.rendezvous`: the next `times` calls wait for each other when
    /// they start executing.
    CallRendezvous,
}

/// How long a call waits at `call.rendezvous` for the others: far longer
/// than calls started together take to arrive, so only calls that do not
/// run at once miss it.
pub const RENDEZVOUS_WAIT: Duration = Duration::from_secs(10);

impl FaultPoint {
    /// Every point this implementation supports.
    pub const ALL: [FaultPoint; 6] = [
        FaultPoint::FsStat,
        FaultPoint::WriteBeforeCommit,
        FaultPoint::DeclarationsUpdate,
        FaultPoint::McpDisconnect,
        FaultPoint::CallPark,
        FaultPoint::CallRendezvous,
    ];

    /// The point's protocol name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            FaultPoint::FsStat => "fs.stat",
            FaultPoint::WriteBeforeCommit => "write.before_commit",
            FaultPoint::DeclarationsUpdate => "declarations.update",
            FaultPoint::McpDisconnect => "mcp.disconnect",
            FaultPoint::CallPark => "call.park",
            FaultPoint::CallRendezvous => "call.rendezvous",
        }
    }

    /// The point named `name`, if supported.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

/// How one point is armed: let `skip` hits pass, then fire `times` times.
#[derive(Debug, Default, Clone, Copy)]
struct Arming {
    skip: u32,
    times: u32,
}

/// The faults armed in one session.
#[derive(Debug, Default)]
pub struct Faults {
    armed: Mutex<HashMap<FaultPoint, Arming>>,
    /// `call.rendezvous`: how many calls are to meet, how many have come.
    rendezvous: Mutex<Rendezvous>,
    met: Condvar,
}

#[derive(Debug, Default, Clone, Copy)]
struct Rendezvous {
    size: u32,
    arrived: u32,
}

/// A `call.rendezvous` the others did not come to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Missed {
    /// Calls that had arrived when the wait ended.
    pub arrived: u32,
    /// Calls armed to meet.
    pub size: u32,
}

impl Missed {
    /// What the model reads.
    #[must_use]
    pub fn message(self) -> String {
        format!(
            "call.rendezvous: {} of {} calls had started after {} s; the calls armed to meet did \
             not run at once",
            self.arrived,
            self.size,
            RENDEZVOUS_WAIT.as_secs()
        )
    }
}

impl Faults {
    /// Arms `point` to fire the next `times` times it is reached.
    pub fn arm(&self, point: FaultPoint, times: u32) {
        self.arm_after(point, 0, times);
    }

    /// Arms `point` to let `skip` hits pass and then fire `times` times, so
    /// a scenario can aim at the second or third stat of one edit (its
    /// after-read and before-write checks). Re-arming replaces the arming.
    pub fn arm_after(&self, point: FaultPoint, skip: u32, times: u32) {
        let mut armed = self.armed.lock().unwrap_or_else(PoisonError::into_inner);
        armed.insert(point, Arming { skip, times });
        if point == FaultPoint::CallRendezvous {
            *self
                .rendezvous
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Rendezvous {
                size: times,
                arrived: 0,
            };
        }
    }

    /// Arrives at `call.rendezvous` and waits up to `wait` until every call
    /// armed to meet has arrived.
    ///
    /// # Errors
    /// [`Missed`] when the wait ended first.
    pub fn meet(&self, wait: Duration) -> Result<(), Missed> {
        let deadline = Instant::now() + wait;
        let mut state = self
            .rendezvous
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        state.arrived += 1;
        self.met.notify_all();
        while state.arrived < state.size {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Missed {
                    arrived: state.arrived,
                    size: state.size,
                });
            }
            state = self
                .met
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        Ok(())
    }

    /// Whether `point` fires now; consumes one hit.
    pub fn fire(&self, point: FaultPoint) -> bool {
        let mut armed = self.armed.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(arming) = armed.get_mut(&point) else {
            return false;
        };
        if arming.skip > 0 {
            arming.skip -= 1;
            false
        } else if arming.times > 0 {
            arming.times -= 1;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_fires_exactly_as_often_as_armed() {
        let faults = Faults::default();
        assert!(!faults.fire(FaultPoint::FsStat));
        faults.arm(FaultPoint::FsStat, 2);
        assert!(faults.fire(FaultPoint::FsStat));
        assert!(!faults.fire(FaultPoint::WriteBeforeCommit));
        assert!(faults.fire(FaultPoint::FsStat));
        assert!(!faults.fire(FaultPoint::FsStat));
    }

    #[test]
    fn a_fault_can_let_hits_pass_first() {
        let faults = Faults::default();
        faults.arm_after(FaultPoint::FsStat, 2, 1);
        let hits: Vec<bool> = (0..4).map(|_| faults.fire(FaultPoint::FsStat)).collect();
        assert_eq!(hits, [false, false, true, false]);
    }

    #[test]
    fn a_rendezvous_lets_calls_on_together_and_reports_one_left_alone() {
        let faults = Faults::default();
        faults.arm(FaultPoint::CallRendezvous, 3);
        std::thread::scope(|scope| {
            let waiting: Vec<_> = (0..3)
                .map(|_| scope.spawn(|| faults.meet(Duration::from_secs(10))))
                .collect();
            for call in waiting {
                assert_eq!(call.join().unwrap(), Ok(()));
            }
        });
        faults.arm(FaultPoint::CallRendezvous, 2);
        let missed = faults.meet(Duration::from_millis(20)).unwrap_err();
        assert_eq!(
            missed,
            Missed {
                arrived: 1,
                size: 2
            }
        );
        assert!(
            missed
                .message()
                .starts_with("call.rendezvous: 1 of 2 calls")
        );
    }

    #[test]
    fn names_round_trip() {
        for p in FaultPoint::ALL {
            assert_eq!(FaultPoint::parse(p.as_str()), Some(p));
        }
        assert_eq!(FaultPoint::parse("mcp.reconnect"), None);
    }
}
