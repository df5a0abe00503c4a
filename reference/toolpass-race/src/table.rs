//! The report: one row per attack, and which numbers fail the run.
//!
//! Outside reads, writes and names must be 0 in every row, and so must the
//! updates lost between two reference processes. The appender's losses and
//! kill -9 debris are reported, and fail the run only when their gate is on
//! (`--gate-appender`, `--gate-debris`), so CI can enforce each once the
//! reference holds it (the appender's perhaps never: see `lost`). A row
//! whose tool never worked inside the root fails too: its zeros would mean
//! nothing.

use std::fmt::Write;

/// One attack's numbers; `None` where the attack does not measure it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Row {
    pub(crate) attack: String,
    pub(crate) iterations: usize,
    pub(crate) seconds: f64,
    /// Calls that did their job inside the root: proof the attack ran.
    pub(crate) inside: Option<u64>,
    pub(crate) outside_reads: Option<u64>,
    pub(crate) outside_writes: Option<u64>,
    pub(crate) outside_names: Option<u64>,
    pub(crate) lost: Option<u64>,
    pub(crate) debris: Option<u64>,
    /// Whether `lost` must be 0.
    pub(crate) gate_lost: bool,
    /// Whether `debris` must be 0.
    pub(crate) gate_debris: bool,
    /// Details printed under the table.
    pub(crate) notes: Vec<String>,
}

const HEADERS: [&str; 9] = [
    "attack",
    "iterations",
    "time",
    "inside ok",
    "outside reads",
    "outside writes",
    "outside names",
    "lost",
    "debris",
];

fn cell(value: Option<u64>) -> String {
    value.map_or_else(|| "-".to_owned(), |n| n.to_string())
}

impl Row {
    fn cells(&self) -> [String; 9] {
        [
            self.attack.clone(),
            self.iterations.to_string(),
            format!("{:.1}s", self.seconds),
            cell(self.inside),
            cell(self.outside_reads),
            cell(self.outside_writes),
            cell(self.outside_names),
            cell(self.lost),
            cell(self.debris),
        ]
    }

    /// Why this row fails the run, one sentence each.
    pub(crate) fn failures(&self) -> Vec<String> {
        let mut failures = Vec::new();
        let mut must_be_zero = |what: &str, value: Option<u64>, gated: bool| {
            if let Some(n) = value.filter(|&n| n > 0 && gated) {
                failures.push(format!("{}: {n} {what} (must be 0)", self.attack));
            }
        };
        must_be_zero("outside reads", self.outside_reads, true);
        must_be_zero("outside writes", self.outside_writes, true);
        must_be_zero("outside names", self.outside_names, true);
        must_be_zero("lost updates", self.lost, self.gate_lost);
        must_be_zero("debris", self.debris, self.gate_debris);
        if self.inside == Some(0) {
            failures.push(format!(
                "{}: no call worked inside the root, so the attack measured nothing",
                self.attack
            ));
        }
        failures
    }
}

/// A note naming up to five of `items`, or none when there are none.
pub(crate) fn first_few<S: AsRef<str>>(what: &str, items: &[S]) -> Option<String> {
    (!items.is_empty()).then(|| {
        let shown: Vec<&str> = items.iter().take(5).map(AsRef::as_ref).collect();
        format!("{what} ({} in all): {}", items.len(), shown.join(", "))
    })
}

/// The table, aligned, then each row's notes.
pub(crate) fn render(rows: &[Row]) -> String {
    let cells: Vec<[String; 9]> = rows.iter().map(Row::cells).collect();
    let mut widths = HEADERS.map(str::len);
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, row: &[String]| {
        let mut text = String::new();
        for (i, (cell, width)) in row.iter().zip(widths).enumerate() {
            // The attack name is text (left); the rest are numbers (right).
            let _ = if i == 0 {
                write!(text, "{cell:<width$}  ")
            } else {
                write!(text, "{cell:>width$}  ")
            };
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&mut out, &HEADERS.map(str::to_owned));
    line(&mut out, &widths.map(|w| "-".repeat(w)));
    for row in &cells {
        line(&mut out, row);
    }
    for row in rows.iter().filter(|r| !r.notes.is_empty()) {
        let _ = writeln!(out, "\n{}:", row.attack);
        for note in &row.notes {
            let _ = writeln!(out, "  {note}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(attack: &str) -> Row {
        Row {
            attack: attack.to_owned(),
            iterations: 2000,
            seconds: 1.25,
            inside: Some(1000),
            outside_reads: Some(0),
            outside_writes: Some(0),
            outside_names: Some(0),
            ..Row::default()
        }
    }

    #[test]
    fn first_few_names_five_and_counts_all() {
        let items: Vec<String> = (0..7).map(|i| format!("t{i}")).collect();
        assert_eq!(
            first_few("missing", &items).unwrap(),
            "missing (7 in all): t0, t1, t2, t3, t4"
        );
        assert_eq!(first_few::<&str>("missing", &[]), None);
    }

    #[test]
    fn a_clean_row_passes() {
        assert!(clean("read_file").failures().is_empty());
    }

    #[test]
    fn outside_numbers_always_fail() {
        let mut row = clean("read_file");
        row.outside_reads = Some(2345);
        row.outside_names = Some(1);
        assert_eq!(
            row.failures(),
            [
                "read_file: 2345 outside reads (must be 0)",
                "read_file: 1 outside names (must be 0)"
            ]
        );
    }

    #[test]
    fn losses_and_debris_fail_only_when_gated() {
        let mut row = Row {
            attack: "appender".to_owned(),
            lost: Some(1),
            debris: Some(30),
            ..Row::default()
        };
        assert!(row.failures().is_empty());
        row.gate_lost = true;
        row.gate_debris = true;
        assert_eq!(
            row.failures(),
            [
                "appender: 1 lost updates (must be 0)",
                "appender: 30 debris (must be 0)"
            ]
        );
    }

    #[test]
    fn a_row_that_never_worked_inside_fails() {
        let mut row = clean("glob");
        row.inside = Some(0);
        assert_eq!(row.failures().len(), 1);
        assert!(row.failures()[0].contains("measured nothing"));
    }

    #[test]
    fn the_table_aligns_and_dashes_what_is_not_measured() {
        let mut kill = Row {
            attack: "kill -9".to_owned(),
            iterations: 20,
            seconds: 30.0,
            debris: Some(40),
            ..Row::default()
        };
        kill.notes.push("20 temp files, 20 spill dirs".to_owned());
        let text = render(&[clean("read_file"), kill]);
        let expected = "\
attack     iterations   time  inside ok  outside reads  outside writes  outside names  lost  debris
---------  ----------  -----  ---------  -------------  --------------  -------------  ----  ------
read_file        2000   1.2s       1000              0               0              0     -       -
kill -9            20  30.0s          -              -               -              -     -      40

kill -9:
  20 temp files, 20 spill dirs
";
        assert_eq!(text, expected);
    }
}
