//! Checks a parsed scenario for what its types cannot say: unknown
//! features, fault points and error codes; regexes that do not compile;
//! placeholders naming a variable no earlier `capture` defines; `pending`
//! without a reason; paths (call arguments, symlink targets) that would
//! lead an implementation or the runner out of the scenario's private
//! directory; and the like. Every problem is collected, each at its own
//! position.

use std::collections::{BTreeMap, BTreeSet};

use toolpass_protocol::{ConfirmOutcome, ErrorCode, FaultPoint, Feature, Status};

use crate::confine::{self, Base, Links};
use crate::expect::Expect;
use crate::files::{Content, FileEntry, FileExpectation, FsAction, RelPath};
use crate::json::Json;
use crate::level::Level;
use crate::located::{Located, Pos};
use crate::matcher::{Condition, Matcher, Pattern, SnapshotName};
use crate::placeholder::{self, OUTSIDE, OUTSIDE_PREFIX, Piece, ROOT};
use crate::scenario::Scenario;
use crate::step::{Call, Capture, ExpectTools, StepKind};
use crate::suggest;

const NO_SNAPSHOT_IN_ANY_OF: &str =
    "no snapshot inside `any_of`: `--bless` would rewrite it for every alternative";

/// Whether any of `matchers` compares with a snapshot file.
fn has_snapshot<'a>(matchers: impl IntoIterator<Item = &'a Matcher>) -> bool {
    matchers
        .into_iter()
        .flat_map(Matcher::conditions)
        .any(|c| matches!(c, Condition::Snapshot(_)))
}

/// A problem found in a scenario, at a position when one is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    pub(crate) pos: Pos,
    pub(crate) message: String,
}

/// Every problem of `scenario`, in the order written.
pub(crate) fn check(scenario: &Scenario) -> Vec<Problem> {
    let mut checker = Checker {
        problems: Vec::new(),
        defined: BTreeSet::from([ROOT.to_owned(), OUTSIDE.to_owned()]),
        call_ids: BTreeSet::new(),
        in_flight: BTreeMap::new(),
        snapshots: BTreeMap::new(),
        step: 0,
        links: Links::of(scenario),
        ended: None,
    };
    checker.scenario(scenario);
    checker.problems.sort_by_key(|p| p.pos);
    checker.problems
}

struct Checker {
    problems: Vec<Problem>,
    /// Placeholder names defined so far: `root`, `outside` and earlier
    /// captures.
    defined: BTreeSet<String>,
    /// Call ids seen so far.
    call_ids: BTreeSet<String>,
    /// `async` calls not yet joined or cancelled, with their position.
    in_flight: BTreeMap<String, Pos>,
    /// Snapshot names seen so far, with their step.
    snapshots: BTreeMap<String, usize>,
    /// The step being checked, from 1.
    step: usize,
    /// Every symlink the scenario declares, followed when a path is
    /// checked.
    links: Links,
    /// The step that ended the session or the server (`close_session` or
    /// `kill_server`) and its line.
    ended: Option<(&'static str, u32)>,
}

impl Checker {
    /// A batch's `budget:`: a map of the account's members, each a
    /// non-negative integer.
    fn batch_budget(&mut self, pos: Pos, budget: &serde_json::Value) {
        const MEMBERS: [&str; 4] = ["budget", "before", "after", "reduced"];
        let Some(map) = budget.as_object() else {
            self.report(
                pos,
                "budget: expected a map of budget, before, after, reduced",
            );
            return;
        };
        for (key, value) in map {
            if !MEMBERS.contains(&key.as_str()) {
                self.report(
                    pos,
                    format!(
                        "budget: unknown member `{key}`: the account has {}",
                        MEMBERS.join(", ")
                    ),
                );
            } else if !value.is_u64() {
                self.report(
                    pos,
                    format!("budget.{key}: expected a non-negative integer, got {value}"),
                );
            }
        }
    }

    fn report(&mut self, pos: Pos, message: impl Into<String>) {
        self.problems.push(Problem {
            pos,
            message: message.into(),
        });
    }

    fn scenario(&mut self, s: &Scenario) {
        if s.title.trim().is_empty() {
            self.report(s.title.pos, "the title is empty");
        }
        for id in s.spec.iter().filter(|id| id.trim().is_empty()) {
            self.report(id.pos, "spec is empty: name the clause the scenario checks");
        }
        if s.level.value == Level::Pending
            && s.reason.as_deref().is_none_or(|r| r.trim().is_empty())
        {
            self.report(
                s.level.pos,
                "a pending scenario needs a `reason`: say what the reference cannot do yet",
            );
        }
        for feature in &s.requires {
            self.feature(feature);
        }
        for (path, entry) in &s.files {
            self.path(path);
            self.entry(path, entry);
        }
        if s.steps.is_empty() {
            self.report(Pos::UNKNOWN, "a scenario needs at least one step");
        }
        for (i, step) in s.steps.iter().enumerate() {
            self.step = i + 1;
            if let Some(level) = &step.level
                && level.value == Level::Pending
            {
                self.report(
                    level.pos,
                    "a step cannot be pending: make the whole scenario pending, with a reason",
                );
            }
            self.after_the_end(step);
            self.step_kind(&step.kind, step.pos);
        }
        for (id, pos) in std::mem::take(&mut self.in_flight) {
            self.report(
                pos,
                format!(
                    "the async call `{id}` is never joined: end it with a `join: {id}` or \
                     `cancel: {id}` step"
                ),
            );
        }
    }

    fn feature(&mut self, feature: &Located<Feature>) {
        if feature.is_known() {
            return;
        }
        let known: Vec<String> = Feature::KNOWN.iter().map(ToString::to_string).collect();
        let known: Vec<&str> = known.iter().map(String::as_str).collect();
        let message = suggest::unknown("feature", &feature.to_string(), &known);
        self.report(feature.pos, message);
    }

    fn step_kind(&mut self, kind: &StepKind, pos: Pos) {
        match kind {
            StepKind::Call(call) => self.call(call),
            StepKind::Join(join) => {
                self.joined(&join.call_id, "join");
                self.timeout(join.timeout_ms, pos);
                if let Some(expect) = &join.expect {
                    self.expect(expect, pos);
                }
            }
            StepKind::Cancel(cancel) => {
                self.joined(&cancel.call_id, "cancel");
                self.timeout(cancel.timeout_ms, pos);
                if let Some(expect) = &cancel.expect {
                    self.expect(expect, pos);
                }
            }
            StepKind::WaitUpdate(wait) => {
                self.matcher(&wait.matcher);
                if let Some(id) = &wait.call_id
                    && !self.call_ids.contains(id.as_str())
                {
                    self.report(
                        id.pos,
                        format!("no earlier call has the id `{}`", id.as_str()),
                    );
                }
                self.timeout(wait.timeout_ms, pos);
            }
            StepKind::Batch(batch) => {
                if batch.calls.is_empty() {
                    self.report(pos, "a batch needs at least one call");
                }
                if let Some(budget) = &batch.budget {
                    self.batch_budget(pos, budget.value());
                }
                for call in &batch.calls {
                    if call.run_async {
                        self.report(
                            call.tool.pos,
                            "a call of a batch cannot be async: the batch answers all its calls at once",
                        );
                    }
                    self.call(call);
                }
            }
            StepKind::Confirm(confirm) => {
                if let Some(id) = &confirm.call_id
                    && !self.call_ids.contains(id.as_str())
                {
                    self.report(
                        id.pos,
                        format!("no earlier call has the id `{}`", id.as_str()),
                    );
                }
                let modify = confirm.outcome == ConfirmOutcome::Modify;
                match &confirm.modified_content {
                    Some(content) if !modify => self.report(
                        content.pos,
                        "modified_content goes with `confirm: modify` only",
                    ),
                    Some(content) => self.template(content, content.pos),
                    None if modify => {
                        self.report(pos, "`confirm: modify` needs modified_content");
                    }
                    None => {}
                }
                for answer in confirm.answers.values() {
                    self.template(answer, answer.pos);
                }
                if let Some(expect) = &confirm.expect {
                    self.expect(expect, pos);
                }
            }
            StepKind::Fs(actions) => {
                for action in actions {
                    self.fs(action);
                }
            }
            StepKind::Fault(fault) => {
                if !fault.point.is_known() {
                    let known: Vec<&str> =
                        FaultPoint::KNOWN.iter().map(FaultPoint::as_str).collect();
                    let message = suggest::unknown("fault point", fault.point.as_str(), &known);
                    self.report(fault.point.pos, message);
                }
                if fault.times == 0 {
                    self.report(pos, "a fault with `times: 0` does nothing");
                }
            }
            StepKind::ExpectTools(tools) => {
                if !tools.judges_names() && tools.names_only() {
                    self.report(
                        pos,
                        "expect_tools needs includes, excludes, exact, schema, deferred or reminder",
                    );
                }
                if let Some(deferred) = &tools.deferred {
                    if !deferred.judges_names() || !deferred.names_only() {
                        self.report(
                            pos,
                            "deferred takes includes, excludes or exact, and only those",
                        );
                    }
                    self.included_and_excluded(deferred);
                }
                if let Some(reminder) = &tools.reminder {
                    self.matcher(reminder);
                }
                self.included_and_excluded(tools);
                for subset in tools.schema.values() {
                    self.json(subset);
                }
            }
            StepKind::ExpectFiles(files) => {
                if files.files.is_empty() && !files.exact {
                    self.report(pos, "expect_files names no file");
                }
                for (path, expectation) in &files.files {
                    self.path(path);
                    self.expectation(path, expectation);
                }
            }
            StepKind::WaitNotice(wait) => {
                self.matcher(&wait.matcher);
                self.timeout(wait.timeout_ms, pos);
            }
            StepKind::Capture(capture) => self.capture(capture, pos),
            StepKind::CloseSession | StepKind::KillServer => {
                // Calls still running end with their session or server.
                self.in_flight.clear();
            }
            StepKind::ExpectNoProcesses(expect) => self.timeout(expect.timeout_ms, pos),
        }
    }

    /// After `close_session` or `kill_server` only what needs no
    /// connection may follow (and a kill after a close).
    fn after_the_end(&mut self, step: &Located<crate::Step>) {
        if let Some((ended, line)) = self.ended {
            let allowed = match step.kind {
                StepKind::ExpectFiles(_) | StepKind::ExpectNoProcesses(_) | StepKind::Fs(_) => true,
                StepKind::KillServer => ended == "close_session",
                _ => false,
            };
            if !allowed {
                self.report(
                    step.pos,
                    format!(
                        "`{}` after `{ended}` (line {line}): there is no session to talk to; \
                         only expect_files, expect_no_processes and fs may follow{}",
                        step.kind_name(),
                        if ended == "close_session" {
                            ", and kill_server"
                        } else {
                            ""
                        }
                    ),
                );
            }
        }
        if matches!(step.kind, StepKind::CloseSession | StepKind::KillServer)
            && self.ended.is_none_or(|(ended, _)| ended != "kill_server")
        {
            self.ended = Some((step.kind_name(), step.pos.line));
        }
    }

    fn call(&mut self, call: &Call) {
        if call.tool.trim().is_empty() {
            self.report(call.tool.pos, "the tool name is empty");
        }
        if let Some(id) = &call.id
            && !self.call_ids.insert(id.value.clone())
        {
            self.report(
                id.pos,
                format!("the call id `{}` is used twice", id.as_str()),
            );
        }
        self.json(call.args.as_json());
        for text in call.args.as_json().strings() {
            self.confined(text.value, text.pos, &Base::root());
        }
        if let Some(expect) = &call.expect {
            if call.run_async {
                self.report(
                    call.tool.pos,
                    "an async call is judged where its answer is awaited: put `expect` on its \
                     `join` or `cancel` step",
                );
            }
            self.expect(expect, call.tool.pos);
        }
        if call.run_async {
            match &call.id {
                Some(id) => {
                    self.in_flight.insert(id.value.clone(), id.pos);
                }
                None => self.report(
                    call.tool.pos,
                    "an async call needs an `id`: its `join` or `cancel` step names it",
                ),
            }
        }
    }

    /// A `join` or `cancel` of `id`: it must name an async call in flight.
    fn joined(&mut self, id: &Located<String>, step: &str) {
        if self.in_flight.remove(id.as_str()).is_some() {
            return;
        }
        let message = if self.call_ids.contains(id.as_str()) {
            format!(
                "`{step}: {}` names a call that is not in flight: only an async call not yet \
                 joined or cancelled can be",
                id.as_str()
            )
        } else {
            let ids: Vec<&str> = self.in_flight.keys().map(String::as_str).collect();
            suggest::unknown("async call", id.as_str(), &ids)
        };
        self.report(id.pos, message);
    }

    fn timeout(&mut self, timeout_ms: Option<u64>, pos: Pos) {
        if timeout_ms == Some(0) {
            self.report(pos, "a timeout of 0 ms waits for nothing");
        }
    }

    /// An `expect` of the step at `pos`.
    fn expect(&mut self, expect: &Expect, pos: Pos) {
        if !expect.any_of.is_empty() {
            self.any_of(expect, pos);
        }
        if expect.rpc_error.is_some()
            && *expect
                != (Expect {
                    rpc_error: expect.rpc_error,
                    ..Expect::default()
                })
        {
            self.report(
                pos,
                "`rpc_error` goes alone: a request answered with a JSON-RPC error has no Outcome \
                 to judge",
            );
        }
        if let Some(code) = &expect.error {
            if ErrorCode::parse(code).is_none() {
                let known: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
                let message = suggest::unknown("error code", code, &known);
                self.report(code.pos, message);
            }
            if expect.status.is_some_and(|s| s != Status::Error) {
                self.report(code.pos, "an error code goes with `status: error`");
            }
        }
        if let Some(llm) = &expect.llm {
            self.matcher(llm);
        }
        for subset in [
            &expect.display,
            &expect.confirmation,
            &expect.classifier_input,
        ]
        .into_iter()
        .flatten()
        {
            self.json(subset);
        }
        for matcher in expect.result_file_paths.iter().flatten() {
            self.matcher(matcher);
        }
    }

    /// `expect: {any_of: [...]}`: the only key, two alternatives or more,
    /// none nested, and no snapshot (`--bless` would rewrite it for every
    /// alternative).
    fn any_of(&mut self, expect: &Expect, pos: Pos) {
        let beside = Expect {
            any_of: Vec::new(),
            ..expect.clone()
        };
        if beside != Expect::default() {
            self.report(
                pos,
                "`any_of` is the only key of its `expect`: put the other keys inside each \
                 alternative",
            );
        }
        if expect.any_of.len() < 2 {
            self.report(
                pos,
                "`any_of` needs two alternatives or more: with one, write it alone",
            );
        }
        for alternative in &expect.any_of {
            if !alternative.any_of.is_empty() {
                self.report(
                    pos,
                    "an `any_of` alternative cannot be an `any_of`: list every alternative in one",
                );
            }
            let matchers = alternative
                .llm
                .iter()
                .chain(alternative.result_file_paths.iter().flatten());
            if has_snapshot(matchers) {
                self.report(pos, NO_SNAPSHOT_IN_ANY_OF);
            }
            self.expect(alternative, pos);
        }
    }

    fn fs(&mut self, action: &Located<FsAction>) {
        match &action.value {
            FsAction::Write(files) => {
                for (path, entry) in files {
                    self.path(path);
                    self.entry(path, entry);
                }
            }
            FsAction::Append(files) => {
                for (path, entry) in files {
                    self.path(path);
                    if matches!(entry.content, Content::Symlink(_)) || entry.mode.is_some() {
                        self.report(
                            path.pos,
                            "append takes text or {base64}, no symlink or mode",
                        );
                    }
                    self.entry(path, entry);
                }
            }
            FsAction::Delete(paths) | FsAction::Mkdir(paths) => {
                for path in paths {
                    self.path(path);
                }
            }
            FsAction::Touch(files) => files.keys().for_each(|path| self.path(path)),
            FsAction::Chmod(files) => files.keys().for_each(|path| self.path(path)),
            FsAction::Symlink(links) => {
                for (path, target) in links {
                    self.path(path);
                    self.template(target, target.pos);
                    self.confined(target, target.pos, &Base::link(path));
                }
            }
        }
    }

    /// `entry`, written at `path` (where a symlink entry stands).
    fn entry(&mut self, path: &RelPath, entry: &FileEntry) {
        self.content(path, &entry.content);
    }

    fn content(&mut self, path: &RelPath, content: &Content) {
        match content {
            Content::Text(text) => self.template(text, text.pos),
            Content::Symlink(target) => {
                self.template(target, target.pos);
                self.confined(target, target.pos, &Base::link(path));
            }
            Content::Bytes(_) => {}
        }
    }

    /// A path handed to the implementation or followed by the runner (a
    /// call argument, a symlink target) stays inside the scenario's private
    /// directory: an implementation that fails to confine paths follows
    /// it, so `/etc/passwd`, `{root}/../../x` or a link `../../x` would
    /// have it read or write the machine's own files. Outside files go
    /// under `{outside}`.
    fn confined(&mut self, text: &str, pos: Pos, base: &Base) {
        if let Some(problem) = confine::unconfined(text, base, &self.links) {
            self.report(
                pos,
                format!(
                    "{text:?} {problem}: a peer that does not confine paths would follow it \
                     onto this machine's files; put outside files under {{outside}}/"
                ),
            );
        }
    }

    fn expectation(&mut self, path: &RelPath, expectation: &FileExpectation) {
        for alternative in &expectation.any_of {
            if has_snapshot(&alternative.matches) {
                self.report(path.pos, NO_SNAPSHOT_IN_ANY_OF);
            }
            self.expectation(path, alternative);
        }
        if let Some(content) = &expectation.content {
            self.content(path, content);
        }
        if let Some(matcher) = &expectation.matches {
            self.matcher(matcher);
        }
    }

    fn capture(&mut self, capture: &Capture, pos: Pos) {
        if capture.vars.is_empty() {
            self.report(pos, "capture names no variable");
        }
        // Patterns may use earlier variables only, so check them all
        // before defining any.
        for pattern in capture.vars.values() {
            self.pattern(pattern);
        }
        for name in capture.vars.keys() {
            if name.as_str() == ROOT || name.as_str() == OUTSIDE {
                self.report(
                    name.pos,
                    format!(
                        "`{}` is the sandbox's: capture into another name",
                        name.as_str()
                    ),
                );
            } else if !placeholder::is_identifier(name) {
                self.report(
                    name.pos,
                    format!(
                        "`{}` cannot be a variable: use letters, digits and _, not starting \
                         with a digit",
                        name.as_str()
                    ),
                );
            } else {
                self.defined.insert(name.value.clone());
            }
        }
    }

    /// A name both `includes` and `excludes` list.
    fn included_and_excluded(&mut self, names: &ExpectTools) {
        for name in &names.includes {
            if names.excludes.contains(name) {
                let message = format!("`{}` is both included and excluded", name.as_str());
                self.report(name.pos, message);
            }
        }
    }

    fn matcher(&mut self, matcher: &Matcher) {
        for condition in matcher.conditions() {
            match condition {
                Condition::Equals(text)
                | Condition::Contains(text)
                | Condition::NotContains(text)
                | Condition::StartsWith(text)
                | Condition::EndsWith(text) => self.template(text, text.pos),
                Condition::Regex(pattern) => self.pattern(pattern),
                Condition::Lines(range) | Condition::Chars(range) => {
                    if let (Some(min), Some(max)) = (range.min, range.max)
                        && min > max
                    {
                        self.report(range.pos, format!("min {min} is above max {max}"));
                    }
                }
                Condition::Snapshot(snapshot) => {
                    let name = snapshot.name();
                    let text = match &name.value {
                        SnapshotName::Step => self.step.to_string(),
                        SnapshotName::Named(text) => text.clone(),
                    };
                    let valid = !text.is_empty()
                        && text
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
                    if !valid {
                        self.report(
                            name.pos,
                            format!("bad snapshot name {text:?}: use letters, digits, - and _"),
                        );
                    } else if let Some(step) = self.snapshots.insert(text.clone(), self.step) {
                        self.report(
                            name.pos,
                            format!(
                                "the snapshot `{text}` is already used at step {step}: give \
                                 each snapshot its own name"
                            ),
                        );
                    }
                }
            }
        }
    }

    fn pattern(&mut self, pattern: &Pattern) {
        let source = pattern.source();
        self.template(source, source.pos);
        // Compile with each placeholder as a plain literal: substitution
        // escapes real values, so they cannot break a pattern that
        // compiles this way.
        let probe: String = placeholder::pieces(source)
            .into_iter()
            .map(|piece| match piece {
                Piece::Literal(text) => text,
                Piece::Var(_) => "x",
            })
            .collect();
        if let Err(e) = regex::Regex::new(&probe) {
            let reason = e.to_string();
            let reason = reason
                .lines()
                .find_map(|line| line.strip_prefix("error: "))
                .unwrap_or(&reason)
                .to_owned();
            self.report(
                source.pos,
                format!("the regex {:?} does not compile: {reason}", source.as_str()),
            );
        }
    }

    fn json(&mut self, json: &Json) {
        for text in json.strings() {
            self.template(text.value, text.pos);
        }
    }

    fn template(&mut self, text: &str, pos: Pos) {
        for name in placeholder::placeholders(text) {
            if self.defined.contains(name) {
                continue;
            }
            let captured: Vec<&str> = self
                .defined
                .iter()
                .map(String::as_str)
                .filter(|n| *n != ROOT && *n != OUTSIDE)
                .collect();
            let known = if captured.is_empty() {
                "{root} and {outside} are the only variables here".to_owned()
            } else {
                format!("defined here: root, outside, {}", captured.join(", "))
            };
            self.report(
                pos,
                format!(
                    "`{{{name}}}` names no variable ({known}); write `{{{{{name}}}}}` for the \
                     literal text"
                ),
            );
        }
    }

    fn path(&mut self, path: &RelPath) {
        let full = path.as_str();
        // `{outside}/name`: a file beside the root, under the same rules.
        let text = full.strip_prefix(OUTSIDE_PREFIX).unwrap_or(full);
        let problem = if text.is_empty() {
            Some("an empty path")
        } else if text.starts_with('/') {
            Some("is absolute: sandbox paths are relative to the root")
        } else if text.contains('\\') {
            Some("has a backslash: separate with /")
        } else if text
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
        {
            Some("has an empty, `.` or `..` part: write the plain path under the root")
        } else {
            None
        };
        if let Some(problem) = problem {
            self.report(path.pos, format!("the path {full:?} {problem}"));
        }
    }
}
