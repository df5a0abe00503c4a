//! `toolpass-server --mcp` over stdio, line by line, where the order of
//! what is written matters and an SDK client would hide it: pipelined
//! calls apply in the order they were sent, a cancelled call is not
//! answered (MCP: a receiver SHOULD NOT answer a cancelled request) while
//! the calls queued behind it run, and the calls read before the end of
//! input are answered before the exit.

mod common;

use std::fs;
use std::time::{Duration, Instant};

use common::{Server, sandbox};
use serde_json::{Value, json};

fn mcp(root: &std::path::Path) -> Server {
    Server::start_with(&["--mcp", "--root", root.to_str().unwrap()])
}

fn call(server: &mut Server, name: &str, arguments: Value) -> i64 {
    server.send("tools/call", json!({"name": name, "arguments": arguments}))
}

#[test]
fn pipelined_calls_apply_in_the_order_they_were_sent() {
    let (_dir, root) = sandbox();
    let file = root.join("steps.txt");
    let mut server = mcp(&root);
    // Each edit needs the one before it: sent without waiting, they all
    // succeed only if they run in the order sent.
    let mut ids = vec![call(
        &mut server,
        "write_file",
        json!({"file_path": file, "content": "step 0\n"}),
    )];
    for i in 0..20 {
        ids.push(call(
            &mut server,
            "edit",
            json!({"file_path": file, "old_string": format!("step {i}\n"),
                   "new_string": format!("step {}\n", i + 1)}),
        ));
    }
    for id in ids {
        let result = server.result(id);
        assert_eq!(result["isError"], false, "request {id}: {result}");
    }
    assert_eq!(fs::read_to_string(&file).unwrap(), "step 20\n");
    let (status, _) = server.finish();
    assert!(status.success());
}

#[test]
fn a_cancelled_call_is_stopped_and_not_answered_and_the_queue_goes_on() {
    let (_dir, root) = sandbox();
    let mut server = mcp(&root);
    let started = Instant::now();
    let long = server.send(
        "tools/call",
        json!({"name": "run_shell_command",
               "arguments": {"command": "echo started; sleep 60"},
               "_meta": {"progressToken": "long"}}),
    );
    let after = call(
        &mut server,
        "write_file",
        json!({"file_path": root.join("after.txt"), "content": "after\n"}),
    );
    // The command's first output, as MCP progress under the call's token.
    let progress = server.next_where(|line| line["method"] == "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "long", "{progress}");
    assert_eq!(progress["params"]["message"], "started", "{progress}");
    server.notify(
        "notifications/cancelled",
        json!({"requestId": long, "reason": "the user pressed Esc"}),
    );
    let written = server.result(after);
    assert_eq!(written["isError"], false, "{written}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the queued call waited for the cancelled command to run out"
    );
    assert_eq!(
        fs::read_to_string(root.join("after.txt")).unwrap(),
        "after\n"
    );
    let ping = server.send("ping", json!({}));
    server.result(ping);
    let (status, rest) = server.finish();
    assert!(status.success());
    assert!(
        !rest.iter().any(|line| line["id"] == long),
        "the cancelled call was answered: {rest:?}"
    );
}

#[test]
fn at_the_end_of_input_the_calls_read_are_answered_and_the_server_exits_zero() {
    let (_dir, root) = sandbox();
    let mut server = mcp(&root);
    let file = root.join("late.txt");
    let ids = [
        call(
            &mut server,
            "write_file",
            json!({"file_path": file, "content": "late\n"}),
        ),
        call(&mut server, "read_file", json!({"file_path": file})),
    ];
    // Input closed at once: the SDK still writes what is answered within
    // its drain (5 s), in the order the queue ran it.
    let (status, rest) = server.finish();
    assert!(status.success(), "{status:?}");
    for id in ids {
        let answer = rest.iter().find(|line| line["id"] == id);
        let answer = answer.unwrap_or_else(|| panic!("request {id} unanswered: {rest:?}"));
        assert_eq!(answer["result"]["isError"], false, "{answer}");
    }
    assert_eq!(fs::read_to_string(&file).unwrap(), "late\n");
}
