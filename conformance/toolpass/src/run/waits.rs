//! Waiting for notifications (`wait_notice`, `wait_update`): a backlog of
//! what arrived and was not waited for yet, so a notification is found
//! whether it came before its step or during it, and one step's wait never
//! throws away what a later step waits for. Bounded: a chatty
//! implementation cannot grow the runner without limit.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use toolpass_protocol::Notification;

use crate::Connection;

/// How many notifications are kept for later waits before the oldest go.
const BACKLOG: usize = 1024;

/// The notifications read and not yet waited for, oldest first.
#[derive(Debug, Default)]
pub(crate) struct Backlog {
    unread: VecDeque<Notification>,
}

impl Backlog {
    /// The first notification `wanted` accepts, from the backlog or
    /// arriving within `limit`; `None` when none did. The ones passed over
    /// stay for later waits.
    pub(crate) async fn wait(
        &mut self,
        connection: &mut Connection,
        limit: Duration,
        wanted: impl Fn(&Notification) -> bool,
    ) -> Option<Notification> {
        if let Some(i) = self.unread.iter().position(&wanted) {
            return self.unread.remove(i);
        }
        let deadline = Instant::now() + limit;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            let notification = connection.next_notification(left).await?;
            if wanted(&notification) {
                return Some(notification);
            }
            if self.unread.len() == BACKLOG {
                self.unread.pop_front();
            }
            self.unread.push_back(notification);
        }
        None
    }

    /// What is waiting, oldest first: what a failed wait reports it saw.
    pub(crate) fn unread(&self) -> impl Iterator<Item = &Notification> {
        self.unread.iter()
    }
}
