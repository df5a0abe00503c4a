//! The statistics and the table on hand-made samples: no process started.

use std::time::Duration;

use super::*;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

pub(super) fn sample(scenario: &str, step: usize, tool: &str, round: u32, millis: u64) -> Sample {
    Sample {
        key: (scenario.into(), step),
        tool: tool.into(),
        round,
        elapsed: ms(millis),
        passed: true,
    }
}

pub(super) fn timed(name: &str) -> Timed {
    Timed {
        name: name.into(),
        version: "1".into(),
        command: name.into(),
        startup: Stats::of(&[ms(1)]),
        startup_ratio: 1.0,
    }
}

#[test]
fn percentiles_are_nearest_rank() {
    let sorted: Vec<f64> = (1..=100).map(f64::from).collect();
    assert_eq!(percentile(&sorted, 50.0), 50.0);
    assert_eq!(percentile(&sorted, 95.0), 95.0);
    assert_eq!(percentile(&sorted, 99.0), 99.0);
    assert_eq!(percentile(&[7.0], 99.0), 7.0);
    // Twenty times: p95 is the 19th, p99 the slowest.
    let twenty: Vec<Duration> = (1..=20).map(ms).collect();
    let stats = Stats::of(&twenty);
    assert_eq!((stats.p95_ms, stats.p99_ms), (19.0, 20.0));
    assert_eq!(percentile(&[], 50.0), 0.0);
    let stats = Stats::of(&[ms(3), ms(1), ms(2)]);
    assert_eq!(
        (stats.count, stats.p50_ms, stats.min_ms, stats.max_ms),
        (3, 2.0, 1.0, 3.0)
    );
    assert_eq!(stats.spread(), 1.0);
}

#[test]
fn rounds_rotate_so_no_implementation_always_goes_first() {
    let firsts: Vec<usize> = (0..4).map(|n| rotation(3, n).next().unwrap()).collect();
    assert_eq!(firsts, [0, 1, 2, 0]);
    assert_eq!(rotation(3, 1).collect::<Vec<_>>(), [1, 2, 0]);
}

#[test]
fn ratios_compare_only_the_steps_both_called() {
    // The peer is 10× slower on the step both ran, and also ran a slow
    // step the first skipped: that one must not weigh on the ratio.
    let first = vec![
        sample("a", 1, "read_file", 0, 1),
        sample("a", 2, "edit", 0, 2),
    ];
    let peer = vec![
        sample("a", 1, "read_file", 0, 10),
        sample("b", 1, "read_file", 0, 500),
        sample("a", 2, "edit", 0, 20),
    ];
    let (rows, warnings) = tabulate(
        &[first, peer],
        &[timed("ref"), timed("peer")],
        &BenchConfig::default(),
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    let names: Vec<&str> = rows.iter().map(|r| r.tool.as_str()).collect();
    assert_eq!(names, ["edit", "read_file", ALL_TOOLS]);
    let read = rows[1].cells[1].as_ref().unwrap();
    assert_eq!(read.stats.count, 2);
    assert_eq!(read.ratio, Some(10.0));
    assert_eq!(rows[1].cells[0].as_ref().unwrap().ratio, Some(1.0));
    assert_eq!(rows[2].cells[1].as_ref().unwrap().ratio, Some(10.0));
}

#[test]
fn a_tool_whose_round_medians_spread_widely_is_flagged() {
    let steady: Vec<Sample> = (0..3).map(|r| sample("a", 1, "glob", r, 10)).collect();
    let noisy = vec![sample("a", 1, "glob", 0, 10), sample("a", 1, "glob", 1, 30)];
    let (_, warnings) = tabulate(
        &[steady, noisy],
        &[timed("ref"), timed("peer")],
        &BenchConfig::default(),
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        warnings[0],
        "peer glob round medians: 10.000–30.000 ms, spread 200% > 25%"
    );
}

#[test]
fn a_tool_one_implementation_never_called_has_no_cell() {
    let (rows, _) = tabulate(
        &[
            vec![sample("a", 1, "glob", 0, 1)],
            vec![sample("b", 1, "edit", 0, 1)],
        ],
        &[timed("ref"), timed("peer")],
        &BenchConfig::default(),
    );
    assert!(rows[0].cells[0].is_none() && rows[0].cells[1].is_some()); // edit: the peer only
    assert_eq!(rows[2].cells[1].as_ref().unwrap().ratio, None); // nothing in common
}

#[test]
fn the_text_names_each_implementation_and_the_ratio_basis() {
    let bench = Bench {
        rounds: 3,
        warmup: 1,
        implementations: vec![timed("ref"), timed("peer")],
        tools: tabulate(
            &[
                vec![sample("a", 1, "glob", 0, 1)],
                vec![sample("a", 1, "glob", 0, 25)],
            ],
            &[timed("ref"), timed("peer")],
            &BenchConfig::default(),
        )
        .0,
        warnings: vec!["peer start-up: 1.000–1.800 ms, spread 80% > 25%".into()],
    };
    let text = render::text(&bench);
    assert!(text.contains("3 rounds after 1 warm-up"), "{text}");
    assert!(text.contains("25.0 / 25.0 (1) 25×"), "{text}");
    assert!(
        text.contains("on the scenario steps both called and both passed"),
        "{text}"
    );
    assert!(text.contains("warning: 1 figure is not stable"), "{text}");
    assert!(
        text.ends_with("\n  peer start-up: 1.000–1.800 ms, spread 80% > 25%\n"),
        "{text}"
    );
}

/// The rows of a reference's and a peer's samples.
pub(super) fn ref_and_peer(first: Vec<Sample>, peer: Vec<Sample>) -> (Vec<ToolRow>, Vec<String>) {
    tabulate(
        &[first, peer],
        &[timed("ref"), timed("peer")],
        &BenchConfig::default(),
    )
}

#[test]
fn ratios_leave_out_the_steps_either_implementation_failed() {
    // The peer fails `b#1` at once (a wrong answer is fast): counted in its
    // own figures, but not in the ratio, which would rank it faster.
    let first = vec![
        sample("a", 1, "read_file", 0, 2),
        sample("b", 1, "read_file", 0, 2),
    ];
    let mut wrong = sample("b", 1, "read_file", 0, 0);
    wrong.passed = false;
    let peer = vec![sample("a", 1, "read_file", 0, 4), wrong];
    let (rows, _) = ref_and_peer(first.clone(), peer);
    let read = rows[0].cells[1].as_ref().unwrap();
    assert_eq!(read.stats.count, 2);
    assert_eq!(read.ratio, Some(2.0));

    // And the first's failures are left out the same way.
    let mut failing_first = first;
    failing_first[0].passed = false;
    let peer = vec![
        sample("a", 1, "read_file", 0, 40),
        sample("b", 1, "read_file", 0, 4),
    ];
    let (rows, _) = ref_and_peer(failing_first, peer);
    assert_eq!(rows[0].cells[1].as_ref().unwrap().ratio, Some(2.0));
}

#[test]
fn a_ratio_is_never_printed_as_zero() {
    use super::render::short_times;
    let shown: Vec<String> = [70.4, 4.14, 0.123, 0.05, 0.004, 0.0, f64::NAN]
        .into_iter()
        .map(short_times)
        .collect();
    assert_eq!(
        shown,
        ["70×", "4.1×", "0.12×", "0.05×", "<0.01×", "<0.01×", "–"]
    );
}
