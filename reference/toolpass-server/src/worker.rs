//! One session's queue and the task that works it: the session's requests
//! (`tools/call`, `toolpass/confirm`, `tools/list`, `toolpass/fault`,
//! `toolpass/session.close`) are carried out one at a time, in the order
//! they arrived, each tool call on the blocking pool. Sessions do not wait
//! for each other.
//!
//! The worker also owns the session's table of calls awaiting
//! confirmation, keyed by call id: a call that asks is answered
//! `awaiting_confirmation` and parked there, holding no lock and no file,
//! until `toolpass/confirm` names it; the queue goes on meanwhile.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::sync::{OwnedSemaphorePermit, mpsc};
use toolpass_protocol::method;
use toolpass_protocol::{
    BatchResult, ConfirmOutcome, ConfirmParams, EmptyResult, ProgressToken, RequestId,
    ResponseError, SessionId,
};
use toolpass_tools::confirmation::{Answer, Confirmation};
use toolpass_tools::context::{Cancellation, InvocationContext};
use toolpass_tools::faults::FaultPoint;
use toolpass_tools::scheduler::{self, Pending, Scheduled};
use toolpass_tools::session::Session;

use crate::convert;
use crate::inflight::InFlight;
use crate::outbound::Outbound;
use crate::sinks::{Notices, Updates};
use crate::tools;

/// A request for the session, with the permit that bounds what is in
/// flight (released when the request is answered).
pub(crate) struct Queued {
    pub(crate) id: RequestId,
    pub(crate) job: Job,
    pub(crate) permit: Option<OwnedSemaphorePermit>,
}

/// What a session request asks for.
pub(crate) enum Job {
    /// `tools/call`.
    Call(Call),
    /// `toolpass/batch`: its calls, in the model's order.
    Batch(Vec<Call>),
    /// `toolpass/confirm`.
    Confirm(ConfirmParams, Cancellation),
    /// `tools/list`.
    List,
    /// `toolpass/fault`, with its point already known to be supported.
    Fault {
        point: FaultPoint,
        skip: u32,
        times: u32,
    },
    /// `toolpass/session.close`.
    Close,
}

/// A `tools/call`, unpacked.
pub(crate) struct Call {
    pub(crate) name: String,
    pub(crate) arguments: Map<String, Value>,
    pub(crate) call_id: String,
    pub(crate) token: Option<ProgressToken>,
    pub(crate) cancellation: Cancellation,
}

/// A call awaiting confirmation, and where its updates go once it runs.
struct Parked {
    pending: Pending,
    token: Option<ProgressToken>,
}

/// The task working one session's queue.
pub(crate) struct Worker {
    id: SessionId,
    session: Arc<Session>,
    outbound: Outbound,
    in_flight: InFlight,
    parked: HashMap<String, Parked>,
}

impl Worker {
    pub(crate) fn new(
        id: SessionId,
        session: Arc<Session>,
        outbound: Outbound,
        in_flight: InFlight,
    ) -> Self {
        Worker {
            id,
            session,
            outbound,
            in_flight,
            parked: HashMap::new(),
        }
    }

    /// Connects the session's MCP servers, works the queue until the
    /// session is closed or the queue ends (end of input: every request
    /// queued is still answered), then ends the session's background shells
    /// and MCP servers.
    pub(crate) async fn run(mut self, mut queue: mpsc::UnboundedReceiver<Queued>) {
        // The session's MCP servers are connected before its first request
        // is worked, as Qwen discovers them before the model's first turn:
        // every call sees their tools.
        let session = Arc::clone(&self.session);
        if let Err(error) = blocking(move || session.start_mcp()).await {
            tracing::error!("connecting the session's MCP servers: {}", error.message);
        }
        while let Some(Queued { id, job, permit }) = queue.recv().await {
            let close = matches!(job, Job::Close);
            self.handle(&id, job).await;
            self.in_flight.finished(&id);
            drop(permit);
            if close {
                break;
            }
        }
        close_shells(Arc::clone(&self.session)).await;
    }

    async fn handle(&mut self, id: &RequestId, job: Job) {
        match job {
            Job::Call(call) => self.call(id, call).await,
            Job::Batch(calls) => self.batch(id, calls).await,
            Job::Confirm(params, cancellation) => self.confirm(id, params, cancellation).await,
            Job::List => {
                let declared = tools::declared(&self.session);
                let result = convert::tools_list(&declared, tools::deferred(&self.session));
                self.outbound.result::<method::ToolsList>(id, &result);
            }
            Job::Fault { point, skip, times } => {
                self.session.faults().arm_after(point, skip, times);
                self.outbound.result::<method::Fault>(id, &EmptyResult {});
            }
            Job::Close => {
                // Calls awaiting confirmation go with the session; nothing
                // of theirs was written. Its background shells end before
                // the answer: once it is read, none of them runs.
                self.parked.clear();
                close_shells(Arc::clone(&self.session)).await;
                self.outbound
                    .result::<method::SessionClose>(id, &EmptyResult {});
            }
        }
    }

    async fn call(&mut self, id: &RequestId, call: Call) {
        if let Some(error) = self.refuse_parked(method::TOOLS_CALL, [&call]) {
            return self.outbound.error(Some(id.clone()), error);
        }
        let context = self.context(call.cancellation, call.token.clone(), &call.call_id);
        let (session, outbound, reply_to) =
            (Arc::clone(&self.session), self.outbound.clone(), id.clone());
        let arguments = Value::Object(call.arguments);
        let name = call.name;
        // The reply is serialized on the blocking pool too: an edit's
        // Outcome holds the file twice.
        let parked = blocking(move || {
            match scheduler::schedule(&session, &name, &arguments, &context) {
                Scheduled::Done(outcome) => {
                    outbound.result::<method::ToolsCall>(&reply_to, &convert::outcome(outcome));
                    None
                }
                Scheduled::Awaiting(pending) => {
                    // Sent before the call is parked below: a confirmation
                    // the client sends at once waits in this queue until
                    // then.
                    let outcome = convert::awaiting(&pending);
                    outbound.result::<method::ToolsCall>(&reply_to, &outcome);
                    Some(pending)
                }
            }
        })
        .await;
        match parked {
            Ok(Some(pending)) => {
                let token = call.token;
                self.parked.insert(call.call_id, Parked { pending, token });
            }
            Ok(None) => {}
            Err(error) => self.outbound.error(Some(id.clone()), error),
        }
    }

    /// The refusal of a request whose call id names a call still awaiting
    /// confirmation: call ids are unique in a session, and answering the
    /// parked one would become ambiguous.
    fn refuse_parked<'a>(
        &self,
        method: &str,
        calls: impl IntoIterator<Item = &'a Call>,
    ) -> Option<ResponseError> {
        let call = calls
            .into_iter()
            .find(|c| self.parked.contains_key(&c.call_id))?;
        Some(ResponseError::invalid_params(
            method,
            format!(
                "call id {} already awaits confirmation in session {}: call ids are unique in \
                 a session",
                call.call_id, self.id
            ),
        ))
    }

    async fn batch(&mut self, id: &RequestId, calls: Vec<Call>) {
        if let Some(error) = self.refuse_parked(method::BATCH, &calls) {
            return self.outbound.error(Some(id.clone()), error);
        }
        let tokens: Vec<(String, Option<ProgressToken>)> = calls
            .iter()
            .map(|c| (c.call_id.clone(), c.token.clone()))
            .collect();
        let batch: Vec<scheduler::BatchCall> = calls
            .into_iter()
            .map(|call| scheduler::BatchCall {
                context: self.context(call.cancellation, call.token, &call.call_id),
                name: call.name,
                arguments: Value::Object(call.arguments),
            })
            .collect();
        let (session, outbound, reply_to) =
            (Arc::clone(&self.session), self.outbound.clone(), id.clone());
        let ran = blocking(move || {
            let done = scheduler::schedule_batch(&session, &batch);
            let mut results = Vec::with_capacity(done.calls.len());
            let mut parked = Vec::new();
            for (scheduled, (call_id, token)) in done.calls.into_iter().zip(tokens) {
                match scheduled {
                    Scheduled::Done(outcome) => results.push(convert::outcome(outcome)),
                    Scheduled::Awaiting(pending) => {
                        results.push(convert::awaiting(&pending));
                        parked.push((call_id, Parked { pending, token }));
                    }
                }
            }
            let result = BatchResult {
                results,
                budget: done.report.map(convert::batch_budget),
            };
            // Sent before the waiting calls are parked below: a
            // confirmation the client sends at once waits in this queue.
            outbound.result::<method::Batch>(&reply_to, &result);
            parked
        })
        .await;
        match ran {
            Ok(parked) => self.parked.extend(parked),
            Err(error) => self.outbound.error(Some(id.clone()), error),
        }
    }

    async fn confirm(&mut self, id: &RequestId, params: ConfirmParams, cancellation: Cancellation) {
        let Some(parked) = self.parked.remove(&params.call_id) else {
            let mut error = ResponseError::invalid_params(
                method::CONFIRM,
                format!(
                    "no call {} awaits confirmation in session {}",
                    params.call_id, self.id
                ),
            );
            error.data = Some(json!({"callId": params.call_id}));
            return self.outbound.error(Some(id.clone()), error);
        };
        let answer = answer(
            parked.pending.confirmation(),
            params.outcome,
            params.modified_content,
            params.answers,
        );
        let answer = match answer {
            Ok(answer) => answer,
            Err(message) => {
                // The call still waits: a corrected answer can follow.
                self.parked.insert(params.call_id, parked);
                let error = ResponseError::invalid_params(method::CONFIRM, message);
                return self.outbound.error(Some(id.clone()), error);
            }
        };
        let context = self.context(cancellation, parked.token, &params.call_id);
        let (session, outbound, reply_to) =
            (Arc::clone(&self.session), self.outbound.clone(), id.clone());
        let pending = parked.pending;
        let ran = blocking(move || {
            let outcome = scheduler::confirm(&session, pending, answer, &context);
            outbound.result::<method::Confirm>(&reply_to, &convert::outcome(outcome));
        })
        .await;
        if let Err(error) = ran {
            self.outbound.error(Some(id.clone()), error);
        }
    }

    fn context(
        &self,
        cancellation: Cancellation,
        token: Option<ProgressToken>,
        call_id: &str,
    ) -> InvocationContext {
        InvocationContext::new(
            cancellation,
            Arc::new(Updates::new(self.outbound.clone(), token)),
            Arc::new(Notices::new(
                self.outbound.clone(),
                self.id.clone(),
                call_id.to_owned(),
            )),
        )
        .with_call_id(call_id)
    }
}

/// Ends every background shell of `session` with its family and shuts its
/// MCP servers down, on the blocking pool: it waits for the processes to
/// go.
async fn close_shells(session: Arc<Session>) {
    let closed = blocking(move || {
        session.shells().close();
        session.stop_mcp();
    });
    if let Err(error) = closed.await {
        tracing::error!(
            "closing the session's shells and MCP servers: {}",
            error.message
        );
    }
}

/// Runs `work` on the blocking pool: file work and tools never block the
/// threads that read, dispatch and write.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ResponseError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ResponseError::internal(format!("the call failed: {e}")))
}

/// The user's answer as the tool layer takes it, or why it cannot be one
/// (the call then keeps waiting). Answers go only with questions, and
/// answer them on "proceed" (Qwen's `onConfirm` for questions); `modify`
/// is offered neither for questions nor, as Qwen's `hideModify` says, for
/// a sed edit.
fn answer(
    asked: &Confirmation,
    outcome: ConfirmOutcome,
    modified_content: Option<String>,
    answers: BTreeMap<String, String>,
) -> Result<Answer, &'static str> {
    let questions = matches!(asked, Confirmation::AskUserQuestion { .. });
    if questions {
        return match outcome {
            ConfirmOutcome::ProceedOnce | ConfirmOutcome::ProceedAlways => {
                Ok(Answer::Answers(answers))
            }
            ConfirmOutcome::Cancel => Ok(Answer::Cancel),
            ConfirmOutcome::Modify => Err(
                "modify is not offered for questions: answer proceed_once with answers, or cancel",
            ),
        };
    }
    if !answers.is_empty() {
        return Err("answers go with an ask_user_question confirmation; this call asks none");
    }
    // Only an edit's proposal is content the user can change; Qwen's
    // inline modify of a command or an MCP call changes nothing and runs
    // the original, which would answer "done" to what the user rewrote.
    let modifiable = matches!(asked, Confirmation::Edit(edit) if edit.modifiable);
    match (outcome, modified_content) {
        (ConfirmOutcome::ProceedOnce, _) => Ok(Answer::ProceedOnce),
        (ConfirmOutcome::ProceedAlways, _) => Ok(Answer::ProceedAlways),
        (ConfirmOutcome::Cancel, _) => Ok(Answer::Cancel),
        (ConfirmOutcome::Modify, _) if !modifiable => Err(
            "modify is offered only for a file edit's proposal (a command, an MCP call or \
             a sed edit runs as asked or not at all): answer proceed_once, proceed_always \
             or cancel",
        ),
        (ConfirmOutcome::Modify, Some(content)) => Ok(Answer::Modify(content)),
        (ConfirmOutcome::Modify, None) => {
            Err("modify needs modifiedContent: the content the user edited the proposal into")
        }
    }
}
