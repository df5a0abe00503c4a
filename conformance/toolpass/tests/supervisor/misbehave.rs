//! The implementation the supervisor tests run: this test binary itself,
//! acting as a toolpass server whose (mis)behaviour comes from
//! [`BEHAVIOUR_ENV`], e.g. `crash:2` (exit on the second `tools/call`),
//! or the reference server slowed down, `delay:30` (see
//! [`crate::slow_proxy`]).
//!
//! Plain blocking std IO on purpose: it should look like any small server,
//! not like the supervisor it tests. Every behaviour writes a line to stderr
//! before it does its thing, so tests can check that the tail came along.

use std::io::{self, Write};
use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use toolpass_protocol::method;
use toolpass_protocol::{
    EmptyResult, Feature, InitializeResult, Message, NoticeParams, Notification, Outcome, Request,
    RequestId, Response, ResponseError, SessionId, SessionOpenResult, ToolpassCapability,
    read_message, write_message,
};

/// Selects the behaviour; its presence makes the test binary a server.
pub(crate) const BEHAVIOUR_ENV: &str = "TOOLPASS_TEST_BEHAVIOUR";

/// A file (in the test's temporary directory) where the server appends a
/// line per process it is or starts, `server N`, `grandchild N` or
/// `escaped N`, for tests that cannot read its stderr (a runner binary
/// keeps it).
pub(crate) const PIDS_ENV: &str = "TOOLPASS_TEST_PIDS";

/// What the server does. `N` counts `tools/call` requests from 1, per
/// process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Behaviour {
    /// Answers `initialize` and echoes every `tools/call`; exits at EOF.
    WellBehaved,
    /// Exits with status 3 on the Nth call.
    CrashOn(u32),
    /// Starts a grandchild, then stops answering, on the Nth call.
    HangOn(u32),
    /// Prints a line that is not JSON before answering the Nth call.
    GarbageOn(u32),
    /// Writes 2 MiB to stderr before every answer.
    FloodStderr,
    /// Answers the Nth call with another id.
    WrongIdOn(u32),
    /// Answers the Nth call with a result that is no Outcome.
    BadResultOn(u32),
    /// Exits with status 0 right after answering `initialize`.
    ExitAfterInitialize,
    /// Reads requests but answers none.
    Silent,
    /// Does not exit at EOF.
    IgnoreEof,
    /// A plain MCP server taking `--root DIR`; `tools/call` answers with
    /// its arguments and working directory.
    PlainMcp,
    /// Speaks toolpass/2.
    Toolpass2,
    /// Speaks toolpass/2 only, and refuses a toolpass/1 `initialize` as
    /// `toolpass_protocol::negotiate` refuses another major.
    RefuseToolpass1,
    /// Answers a call to any tool but `ping` with JSON-RPC -32602 `Unknown
    /// tool: NAME`, as the MCP specification's example does.
    UnknownToolRpcError,
    /// Sleeps forever: the grandchild of other behaviours.
    Linger,
}

/// Serves stdin/stdout as `spec` says; never returns.
pub(crate) fn serve(spec: &str) -> ! {
    // Not a behaviour of its own but a relay to the real server.
    if let Some(percent) = spec.strip_prefix("delay:") {
        crate::slow_proxy::serve(percent.parse().expect("P in delay:P is a whole percentage"));
    }
    let behaviour = parse(spec);
    say(&format!("{spec} (pid {})", std::process::id()));
    if behaviour != Behaviour::Linger {
        record_pid("server", std::process::id());
    }
    if behaviour == Behaviour::Linger {
        sleep_forever();
    }
    let mut input = io::stdin().lock();
    let mut calls = 0;
    loop {
        let request = match read_message(&mut input) {
            Ok(Some(Message::Request(request))) => request,
            Ok(Some(_)) => continue,
            Ok(None) => at_eof(behaviour),
            Err(error) => {
                say(&format!("unreadable line: {error}"));
                continue;
            }
        };
        if behaviour == Behaviour::Silent {
            continue;
        }
        if request.is::<method::Initialize>() {
            initialize(behaviour, request.id);
            continue;
        }
        if request.is::<method::SessionOpen>() {
            let opened = SessionOpenResult {
                session_id: SessionId("s1".to_owned()),
            };
            send(Response::ok::<method::SessionOpen>(request.id, &opened));
            continue;
        }
        if request.is::<method::SessionClose>() {
            send(Response::ok::<method::SessionClose>(
                request.id,
                &EmptyResult {},
            ));
            continue;
        }
        if !request.is::<method::ToolsCall>() {
            send(Response::error(
                Some(request.id),
                ResponseError::method_not_found(&request.method),
            ));
            continue;
        }
        calls += 1;
        tools_call(behaviour, calls, request);
    }
}

fn parse(spec: &str) -> Behaviour {
    let (name, n) = match spec.split_once(':') {
        Some((name, n)) => (name, n.parse().expect("N in name:N is a number")),
        None => (spec, 0),
    };
    match name {
        "well" => Behaviour::WellBehaved,
        "crash" => Behaviour::CrashOn(n),
        "hang" => Behaviour::HangOn(n),
        "garbage" => Behaviour::GarbageOn(n),
        "flood" => Behaviour::FloodStderr,
        "wrong-id" => Behaviour::WrongIdOn(n),
        "bad-result" => Behaviour::BadResultOn(n),
        "exit-after-initialize" => Behaviour::ExitAfterInitialize,
        "silent" => Behaviour::Silent,
        "ignore-eof" => Behaviour::IgnoreEof,
        "plain-mcp" => Behaviour::PlainMcp,
        "toolpass2" => Behaviour::Toolpass2,
        "refuse-toolpass1" => Behaviour::RefuseToolpass1,
        "unknown-tool-rpc-error" => Behaviour::UnknownToolRpcError,
        "linger" => Behaviour::Linger,
        other => panic!("unknown behaviour {other:?}"),
    }
}

fn initialize(behaviour: Behaviour, id: RequestId) {
    if behaviour == Behaviour::RefuseToolpass1 {
        let refusal = ResponseError::new(
            ResponseError::INVALID_PARAMS,
            "unsupported protocol version \"toolpass/1\": this server supports toolpass/2",
        )
        .with_data(json!({"supported": ["toolpass/2"], "requested": "toolpass/1"}));
        return send(Response::error(Some(id), refusal));
    }
    let server = toolpass_protocol::Implementation::new("misbehave", "0.0.0");
    let mut result = InitializeResult::new(server, vec![Feature::Sessions, Feature::Notices]);
    match behaviour {
        Behaviour::PlainMcp => {
            result.protocol_version = "2025-06-18".to_owned();
            result.capabilities.toolpass = None;
        }
        Behaviour::Toolpass2 => {
            result.protocol_version = "toolpass/2".to_owned();
            let mut toolpass = ToolpassCapability::new(vec![Feature::Sessions]);
            toolpass.version = 2;
            result.capabilities.toolpass = Some(toolpass);
        }
        _ => {}
    }
    send(Response::ok::<method::Initialize>(id, &result));
    if behaviour == Behaviour::ExitAfterInitialize {
        say("leaving after initialize");
        std::process::exit(0);
    }
}

fn tools_call(behaviour: Behaviour, call: u32, request: Request) {
    let params = request
        .params::<method::ToolsCall>()
        .expect("the supervisor sends valid tools/call params");
    let id = request.id;
    match behaviour {
        Behaviour::CrashOn(n) if n == call => {
            say(&format!("crashing on call {call}"));
            std::process::exit(3);
        }
        Behaviour::HangOn(n) if n == call => {
            let grandchild = spawn_grandchild();
            say(&format!("grandchild {grandchild}; hanging on call {call}"));
            sleep_forever();
        }
        Behaviour::GarbageOn(n) if n == call => {
            say(&format!("garbage on call {call}"));
            write_line(b"this is not JSON {\n");
        }
        Behaviour::WrongIdOn(n) if n == call => {
            say(&format!("wrong id on call {call}"));
            let RequestId::Number(number) = id else {
                panic!("the supervisor sends numeric ids");
            };
            let outcome = Outcome::success("echo with a wrong id", None);
            return send(Response::ok::<method::ToolsCall>(
                RequestId::Number(number + 1000),
                &outcome,
            ));
        }
        Behaviour::BadResultOn(n) if n == call => {
            say(&format!("bad result on call {call}"));
            return send(raw_result(id, json!({"content": "not an array"})));
        }
        Behaviour::FloodStderr => {
            let line = [b'x'; 1023]
                .iter()
                .chain(b"\n")
                .copied()
                .collect::<Vec<u8>>();
            let mut stderr = io::stderr().lock();
            for _ in 0..2048 {
                stderr.write_all(&line).expect("stderr is open");
            }
            drop(stderr);
            say(&format!("flood done for call {call}"));
        }
        Behaviour::UnknownToolRpcError if params.name != "ping" => {
            let error = ResponseError {
                code: ResponseError::INVALID_PARAMS,
                message: format!("Unknown tool: {}", params.name),
                data: None,
            };
            return send(Response::error(Some(id), error));
        }
        Behaviour::PlainMcp => {
            let args: Vec<String> = std::env::args().skip(1).collect();
            let cwd = std::env::current_dir().expect("a working directory");
            let text = format!("{} {} in {}", params.name, args.join(" "), cwd.display());
            return send(raw_result(
                id,
                json!({"content": [{"type": "text", "text": text}]}),
            ));
        }
        _ => {}
    }
    let text = match params.name.as_str() {
        "notify" => {
            let notice = NoticeParams {
                session_id: SessionId("s1".to_owned()),
                kind: "background_shell".to_owned(),
                text: "background job done".to_owned(),
                call_id: None,
            };
            send(Notification::new::<method::Notice>(&notice));
            "notified".to_owned()
        }
        "spawn" => format!("grandchild {}", spawn_grandchild()),
        "escape" => format!("escaped {}", escape()),
        name => format!("echo {call}: {name}"),
    };
    send(Response::ok::<method::ToolsCall>(
        id,
        &Outcome::success(text, None),
    ));
}

fn at_eof(behaviour: Behaviour) -> ! {
    if behaviour == Behaviour::IgnoreEof {
        say("end of input, staying");
        sleep_forever();
    }
    say("end of input, exiting");
    std::process::exit(0)
}

/// Starts this binary again as a `linger` process in the same process
/// group, holding the same pipes: what a shell tool's child would do.
// Never waited for on purpose: the supervisor's group kill must take it.
#[allow(clippy::zombie_processes)]
fn spawn_grandchild() -> u32 {
    let child = Command::new(std::env::current_exe().expect("the test binary has a path"))
        .env(BEHAVIOUR_ENV, "linger")
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn a grandchild");
    record_pid("grandchild", child.id());
    child.id()
}

/// Starts a `sleep` that leaves this process group and this process's
/// children at once: a shell in a new group starts it in the background
/// and exits, as a daemonizing tool does. What a group kill misses.
fn escape() -> u32 {
    let output = Command::new("sh")
        .args(["-c", "sleep 120 </dev/null >/dev/null 2>&1 & echo $!"])
        .process_group(0)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("run sh");
    let pid = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("sh prints the pid of its background job");
    record_pid("escaped", pid);
    pid
}

/// Appends `what pid` to the [`PIDS_ENV`] file, when there is one.
fn record_pid(what: &str, pid: u32) {
    if let Some(path) = std::env::var_os(PIDS_ENV) {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .expect("the pids file can be written");
        writeln!(file, "{what} {pid}").expect("the pids file can be written");
    }
}

fn raw_result(id: RequestId, result: Value) -> Response {
    Response {
        id: Some(id),
        result: Ok(result),
    }
}

fn send(message: impl Into<Message>) {
    write_message(&mut io::stdout().lock(), &message.into()).expect("stdout is open");
}

fn write_line(line: &[u8]) {
    let mut stdout = io::stdout().lock();
    stdout.write_all(line).expect("stdout is open");
    stdout.flush().expect("stdout is open");
}

fn say(what: &str) {
    // One write, so that lines from the server and its grandchild do not
    // interleave. A broken stderr must not change the behaviour under test.
    let line = format!("misbehave: {what}\n");
    let _ = io::stderr().lock().write_all(line.as_bytes());
}

fn sleep_forever() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}
