//! The baseline file and the comparison on hand-made samples: no process
//! started.

use super::baseline::{Baseline, FORMAT, VERSION};
use super::compare::{Verdict, compare, judge};
use super::tests::{ref_and_peer, sample, timed};
use super::*;

/// A bench of `ref` and `peer` over two rounds, where the peer's calls take
/// `peer_ms[round]` against the reference's 10 ms, for `read_file` and
/// `edit` alike, each called just often enough a round to gate.
fn bench_of(peer_ms: [u64; 2]) -> Bench {
    bench_with_calls(peer_ms, MIN_PAIRS_PER_ROUND)
}

/// [`bench_of`] with each tool called `calls` times a round.
fn bench_with_calls(peer_ms: [u64; 2], calls: usize) -> Bench {
    let mut first = Vec::new();
    let mut peer = Vec::new();
    for round in 0..2 {
        for scenario in 0..calls {
            let scenario = format!("s{scenario}");
            for (step, tool) in [(1, "read_file"), (2, "edit")] {
                first.push(sample(&scenario, step, tool, round, 10));
                peer.push(sample(
                    &scenario,
                    step,
                    tool,
                    round,
                    peer_ms[round as usize],
                ));
            }
        }
    }
    let implementations = vec![timed("ref"), timed("peer")];
    let (tools, warnings) = tabulate(&[first, peer], &implementations, &BenchConfig::default());
    Bench {
        rounds: 2,
        warmup: 0,
        implementations,
        tools,
        warnings,
    }
}

/// A figure of ratio `ratio` whose rounds ranged `min..=max` with
/// `spread`.
fn figure(ratio: f64, rounds: Option<(f64, f64, f64)>) -> PairedRatio {
    PairedRatio {
        ratio,
        pairs: 2 * MIN_PAIRS_PER_ROUND,
        fewest_in_a_round: MIN_PAIRS_PER_ROUND,
        rounds: rounds.map(|(min, max, spread)| RatioRange { min, max, spread }),
    }
}

#[test]
fn judging_a_ratio_against_its_baseline() {
    use Verdict::*;
    let steady = Some(figure(1.0, Some((0.98, 1.02, 0.02))));
    // (then, now) → verdict, at a limit of 25%.
    let cases = [
        // Steady rounds: the growth decides.
        (
            steady,
            Some(figure(1.2, Some((1.19, 1.21, 0.02)))),
            Some(Pass),
        ),
        (
            steady,
            Some(figure(1.3, Some((1.29, 1.31, 0.02)))),
            Some(Regression),
        ),
        // Faster is a pass, however much.
        (steady, Some(figure(0.5, Some((0.5, 0.5, 0.0)))), Some(Pass)),
        // Rounds spread beyond the limit, now or then: neither pass nor
        // fail...
        (
            steady,
            Some(figure(1.3, Some((1.0, 1.5, 0.4)))),
            Some(Unstable),
        ),
        (
            steady,
            Some(figure(1.0, Some((0.8, 1.2, 0.4)))),
            Some(Unstable),
        ),
        (
            Some(figure(0.76, Some((0.17, 1.32, 1.6)))),
            Some(figure(1.0, Some((0.95, 1.05, 0.1)))),
            Some(Unstable),
        ),
        // ...unless every round now is beyond every round then.
        (
            steady,
            Some(figure(2.0, Some((1.5, 3.0, 0.6)))),
            Some(Regression),
        ),
        // A single round has no spread to judge noise by.
        (
            Some(figure(1.0, None)),
            Some(figure(1.3, None)),
            Some(Regression),
        ),
        // Too few calls in a round, now or then: not judged, however far
        // the ratio moved.
        (
            steady,
            Some(PairedRatio {
                fewest_in_a_round: MIN_PAIRS_PER_ROUND - 1,
                ..figure(3.0, Some((2.9, 3.1, 0.05)))
            }),
            Some(FewCalls),
        ),
        (
            Some(PairedRatio {
                fewest_in_a_round: 2,
                ..figure(1.0, Some((0.98, 1.02, 0.02)))
            }),
            Some(figure(1.6, Some((1.59, 1.61, 0.02)))),
            Some(FewCalls),
        ),
        (None, Some(figure(1.0, None)), Some(New)),
        (steady, None, Some(Missing)),
        (None, None, None),
    ];
    for (then, now, expected) in cases {
        assert_eq!(
            judge(then.as_ref(), now.as_ref(), 0.25),
            expected,
            "{then:?} → {now:?}"
        );
    }
}

#[test]
fn the_paired_ratio_is_the_median_of_call_over_call_with_its_rounds() {
    let bench = bench_of([10, 15]);
    let read = bench.tools[1].cells[1].as_ref().unwrap().paired.unwrap();
    // Per call: 1.0 in round 0, 1.5 in round 1; nearest-rank medians.
    let calls = MIN_PAIRS_PER_ROUND;
    assert_eq!(
        (read.ratio, read.pairs, read.fewest_in_a_round),
        (1.0, 2 * calls, calls)
    );
    let rounds = read.rounds.unwrap();
    assert_eq!((rounds.min, rounds.max, rounds.spread), (1.0, 1.5, 0.5));
    let all = bench.tools[2].cells[1].as_ref().unwrap().paired.unwrap();
    assert_eq!((all.pairs, all.fewest_in_a_round), (4 * calls, 2 * calls));
    let control = bench.tools[1].cells[0].as_ref().unwrap().paired.unwrap();
    assert_eq!((control.ratio, control.rounds.unwrap().spread), (1.0, 0.0));
}

#[test]
fn one_disturbed_round_of_five_does_not_make_a_figure_unstable() {
    // The peer's rounds run at 1.0, 1.1, 1.2, 3.0 (another process took
    // the cores) and 1.1 times the reference's.
    let peer_ms = [10, 11, 12, 30, 11];
    let first: Vec<Sample> = (0..5).map(|r| sample("a", 1, "glob", r, 10)).collect();
    let peer: Vec<Sample> = (0..5)
        .map(|r| sample("a", 1, "glob", r, peer_ms[r as usize]))
        .collect();
    let (rows, _) = ref_and_peer(first, peer);
    let paired = rows[0].cells[1].as_ref().unwrap().paired.unwrap();
    let rounds = paired.rounds.unwrap();
    assert!((paired.ratio - 1.1).abs() < 1e-9, "{paired:?}");
    assert_eq!((rounds.min, rounds.max), (1.0, 3.0));
    // The middle half: the 2nd and 4th of the five sorted (nearest rank),
    // 1.1 and 1.2, over the median 1.1.
    assert!((rounds.spread - 0.1 / 1.1).abs() < 1e-9, "{rounds:?}");
}

#[test]
fn the_paired_ratio_is_not_moved_by_the_mix_of_fast_and_slow_calls() {
    // Fast reads, slow edits, one call between: the median of all calls
    // sits in the sparse middle, so one call slowed there (noise) moves
    // p50 over p50 to 1.8×, while call over call stays at 1.
    let first_ms = [10, 10, 50, 90, 90];
    let peer_ms = [10, 10, 100, 90, 90];
    let of = |times: [u64; 5]| -> Vec<Sample> {
        (0..5)
            .map(|i| {
                sample(
                    "a",
                    i,
                    if i < 3 { "read_file" } else { "edit" },
                    0,
                    times[i],
                )
            })
            .collect()
    };
    let (rows, _) = ref_and_peer(of(first_ms), of(peer_ms));
    let all = rows[2].cells[1].as_ref().unwrap();
    assert_eq!(all.ratio, Some(1.8));
    let paired = all.paired.unwrap();
    assert_eq!((paired.ratio, paired.pairs, paired.rounds), (1.0, 5, None));
}

#[test]
fn a_baseline_is_saved_and_read_back_unchanged() {
    let baseline = Baseline::of(&bench_of([20, 20]));
    assert_eq!(baseline.format, FORMAT);
    assert_eq!(baseline.version, VERSION);
    assert_eq!(baseline.implementations.len(), 2);
    let peer = &baseline.implementations[1];
    let tools: Vec<&str> = peer.tools.iter().map(|f| f.tool.as_str()).collect();
    assert_eq!(tools, ["edit", "read_file", ALL_TOOLS]);
    assert_eq!(peer.tools[1].ratio.map(|p| p.ratio), Some(2.0));
    assert_eq!(
        (peer.tools[1].calls, peer.tools[1].p50_ms),
        (2 * MIN_PAIRS_PER_ROUND, 20.0)
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.json");
    baseline.save(&path).unwrap();
    assert_eq!(Baseline::load(&path).unwrap(), baseline);
}

#[test]
fn a_baseline_names_its_figures_too_noisy_to_gate() {
    // Round ratios 1.0 and 1.5: a spread of 50% for every tool of the peer.
    let baseline = Baseline::of(&bench_of([10, 15]));
    assert_eq!(
        baseline.noisy(0.25),
        [
            "peer edit (50%)",
            "peer read_file (50%)",
            "peer all tools (50%)"
        ]
    );
    assert!(baseline.noisy(0.5).is_empty());
    assert!(Baseline::of(&bench_of([10, 10])).noisy(0.25).is_empty());
}

#[test]
fn a_bad_baseline_file_says_which_and_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.json");
    let missing = Baseline::load(&path).unwrap_err();
    assert!(
        missing.starts_with("cannot read the baseline "),
        "{missing}"
    );
    assert!(missing.contains("b.json"), "{missing}");

    let good = serde_json::to_value(Baseline::of(&bench_of([10, 10]))).unwrap();
    let with = |key: &str, value: serde_json::Value| {
        let mut json = good.clone();
        json[key] = value;
        json.to_string()
    };
    let cases = [
        ("{", "b.json: not JSON: "),
        (
            &with("format", "criterion".into()),
            "b.json: not a bench baseline: its \"format\" is \"criterion\"",
        ),
        (
            &with("version", 2.into()),
            "b.json: baseline version 2, but this toolpass reads version 1",
        ),
        (
            &with("rounds", "three".into()),
            "b.json: not a valid baseline: invalid type: string \"three\"",
        ),
        (
            &with("extra", true.into()),
            "b.json: not a valid baseline: unknown field `extra`",
        ),
        (
            &with("implementations", serde_json::json!([])),
            "b.json: a baseline holds a control and at least one implementation; this one has 0",
        ),
    ];
    for (text, expected) in cases {
        std::fs::write(&path, text).unwrap();
        let error = Baseline::load(&path).unwrap_err();
        let shown = error.rsplit('/').next().unwrap();
        assert!(shown.starts_with(expected), "{error}\nwanted {expected}");
    }
}

#[test]
fn a_baseline_of_other_implementations_is_refused() {
    let baseline = Baseline::of(&bench_of([10, 10]));
    let mut bench = bench_of([10, 10]);
    bench.implementations[1].name = "other".into();
    let error = compare(&bench, &baseline, "b.json", 0.25).unwrap_err();
    assert_eq!(
        error,
        "b.json: it was saved for the implementations [ref, peer] (the first the control), \
         but this bench ran [ref, other]; give the same --impl in the same order, \
         or save a new baseline"
    );
}

#[test]
fn a_peer_grown_slower_relative_to_the_control_regresses() {
    let baseline = Baseline::of(&bench_of([10, 10]));
    let same = compare(&bench_of([10, 11]), &baseline, "b.json", 0.25).unwrap();
    assert!(!same.failed());
    assert_eq!(same.rows.len(), 3); // edit, read_file, all tools; not the control
    assert!(same.rows.iter().all(|r| r.verdict == Verdict::Pass));

    let slower = compare(&bench_of([14, 14]), &baseline, "b.json", 0.25).unwrap();
    assert!(slower.failed());
    let row = &slower.rows[1];
    assert_eq!(
        (row.implementation.as_str(), row.tool.as_str()),
        ("peer", "read_file")
    );
    assert_eq!((row.baseline_ratio, row.ratio), (Some(1.0), Some(1.4)));
    assert!((row.change.unwrap() - 0.4).abs() < 1e-9);
    assert_eq!(row.verdict, Verdict::Regression);

    let noisy = compare(&bench_of([10, 16]), &baseline, "b.json", 0.25).unwrap();
    assert!(!noisy.failed());
    assert_eq!(noisy.count(Verdict::Unstable), 3);
}

#[test]
fn a_figure_of_few_calls_is_reported_but_not_judged() {
    let few = MIN_PAIRS_PER_ROUND - 1;
    let baseline = Baseline::of(&bench_with_calls([10, 10], few));
    let slower = compare(&bench_with_calls([30, 30], few), &baseline, "b.json", 0.25).unwrap();
    let verdicts: Vec<(&str, Verdict)> = slower
        .rows
        .iter()
        .map(|r| (r.tool.as_str(), r.verdict))
        .collect();
    // Each tool alone has 9 calls a round: not judged. `all tools` pairs
    // both tools' 18: enough to gate, and it regressed.
    assert_eq!(
        verdicts,
        [
            ("edit", Verdict::FewCalls),
            ("read_file", Verdict::FewCalls),
            (ALL_TOOLS, Verdict::Regression)
        ]
    );
    assert!(slower.failed());
    let text = render_compare::text(&slower, "ref");
    assert!(
        text.ends_with("\n1 regression, 2 few calls, 0 pass\n"),
        "{text}"
    );
    assert!(
        text.contains("fewer than 10 calls in a round is not judged"),
        "{text}"
    );
    assert_eq!(
        baseline.few_calls(),
        ["peer edit (9 a round)", "peer read_file (9 a round)"]
    );
    assert!(Baseline::of(&bench_of([10, 10])).few_calls().is_empty());
}

#[test]
fn the_comparison_tables_show_each_figure_and_the_tally() {
    let baseline = Baseline::of(&bench_of([10, 10]));
    let comparison = compare(&bench_of([14, 14]), &baseline, "ci/b|1.json", 0.25).unwrap();
    let text = render_compare::text(&comparison, "ref");
    assert!(
        text.contains("against the baseline ci/b|1.json: each figure is the median of each call's time over ref's"),
        "{text}"
    );
    assert!(
        text.contains("  peer            read_file  1.0×      1.4×  +40%    0%      REGRESSION\n"),
        "{text}"
    );
    assert!(text.ends_with("\n3 regressions, 0 pass\n"), "{text}");
    let markdown = render_compare::markdown(&comparison, "ref");
    assert!(
        markdown.starts_with("### toolpass bench against `ci/b\\|1.json`\n"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| peer | all tools | 1.0× | 1.4× | +40% | 0% | **REGRESSION** |\n"),
        "{markdown}"
    );
}

#[test]
fn a_change_is_a_signed_whole_percentage_never_minus_zero() {
    let shown: Vec<String> = [0.4, 0.004, -0.003, -0.11, 2.0]
        .into_iter()
        .map(|f| render_compare::percent(f, true))
        .collect();
    assert_eq!(shown, ["+40%", "0%", "0%", "-11%", "+200%"]);
    assert_eq!(render_compare::percent(0.125, false), "13%");
}
