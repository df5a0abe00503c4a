//! 100 MB of command output through `run_shell_command` costs the server a
//! few megabytes: the runner keeps a head and a tail, the rest is counted.
//! Alone in its test binary, since it reads the process's peak memory.

mod common;

use common::Sandbox;
use serde_json::json;
use toolpass_tools::scheduler::execute_call;

/// The process's peak resident memory so far, in KiB (`VmHWM`).
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status")
}

#[test]
fn a_hundred_megabytes_of_output_cost_bounded_memory() {
    let sb = Sandbox::new();
    let before = peak_kib();
    let call = execute_call(
        &sb.session,
        "run_shell_command",
        &json!({"command": "yes toolpass-output-line | head -c 100000000; echo; echo last-line"}),
    );
    let grown_mib = (peak_kib() - before) / 1024;
    assert!(!call.result.is_error(), "{:?}", call.result.llm_content);
    let text = &call.result.llm_content;
    assert!(text.contains("last-line"), "the tail is kept");
    assert!(text.chars().count() < 40_000, "held to the shell's budget");
    let spilled = call
        .persisted_output_path
        .expect("the whole output spilled");
    let spilled = std::fs::metadata(spilled).unwrap().len();
    assert!(
        spilled < 8 << 20,
        "the spill holds what was kept: {spilled} bytes"
    );
    assert!(
        grown_mib < 64,
        "100 MB of output grew the peak by {grown_mib} MiB"
    );
}
