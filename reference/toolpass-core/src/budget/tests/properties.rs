//! Properties: the fast gates agree with the models on generated input.

use proptest::prelude::*;

use super::super::batch::allocate;
use super::super::*;
use crate::testkit::budget::{
    check_batch, check_texts, fast_finalize, model_allocate, model_llm_text, model_persist_gate,
};

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ab\\n中😀é]{0,60}",
        "(?s).{0,80}",
        ("[a中😀\\n]{1,4}", 1usize..200).prop_map(|(p, n)| p.repeat(n)),
    ]
}

fn any_part() -> impl Strategy<Value = (Option<String>, Option<String>, Option<String>)> {
    (
        proptest::option::of(any_text()),
        proptest::option::of(any_text()),
        proptest::option::of(any_text()),
    )
}

proptest! {
    #[test]
    fn allocate_agrees_with_the_model(lengths in proptest::collection::vec(0usize..300, 0..12), budget in 0usize..2_000) {
        let shares = allocate(&lengths, budget);
        prop_assert_eq!(&shares, &model_allocate(&lengths, budget));
        prop_assert!(shares.iter().sum::<usize>() <= budget.max(lengths.iter().sum()));
    }

    #[test]
    fn batch_agrees_with_the_model_and_fits(
        results in proptest::collection::vec(
            (proptest::collection::vec(any_part(), 0..3), 0u8..4, "(dir/)?(c|c-1|\\.\\.|x!)"),
            0..6,
        ),
        budget in 0usize..400,
    ) {
        let parts: Vec<Vec<Part<'_>>> = results
            .iter()
            .map(|(parts, _, _)| parts.iter().map(|(t, o, e)| Part {
                text: t.as_deref(),
                output: o.as_deref(),
                error: e.as_deref(),
            }).collect())
            .collect();
        let decided: [&[&str]; 3] = [&[], &["/old/a.output"], &["/old/a.output", "/old/b.output"]];
        let entries: Vec<Entry<'_>> = results
            .iter()
            .zip(&parts)
            .map(|((_, kind, id), parts)| Entry {
                call_id: id,
                tool_name: "t",
                parts,
                persisted: decided.get(usize::from(*kind)).copied(),
            })
            .collect();
        if let Err(e) = check_batch(&entries, budget) {
            return Err(TestCaseError::fail(e));
        }
        if let Some((_, _, before, after)) = fast_finalize(&entries, budget, |_, _| None) {
            prop_assert!(before > budget && after <= budget);
        }
    }

    #[test]
    fn texts_agree_with_the_models(text in any_text(), max in 0usize..300, files in proptest::collection::vec("/[a😀]{0,4}", 0..3)) {
        if let Err(e) = check_texts(&text, max, &files) {
            return Err(TestCaseError::fail(e));
        }
        let stub_len = 10 + text.len() / 3;
        prop_assert_eq!(
            persist_gate("t", &text, false, stub_len),
            model_persist_gate("t", &text, false, stub_len)
        );
    }

    #[test]
    fn llm_text_agrees_with_the_model(parts in proptest::collection::vec(proptest::option::of("[ \\n\\ta]{0,3}|Tool output was too large and has been truncated.*"), 0..4), single in any::<bool>()) {
        let content: Vec<ContentPart<'_>> = parts.iter().map(|p| p.as_deref().map_or(ContentPart::Media, ContentPart::Text)).collect();
        let content = match (single, content.first()) {
            (true, Some(ContentPart::Text(t))) => Content::Text(t),
            _ => Content::Parts(&content),
        };
        prop_assert_eq!(llm_text("t", content), model_llm_text("t", content));
    }
}

#[test]
fn fuzz_batch_smoke() {
    let cases: [&[u8]; 5] = [
        b"",
        b"\x10\x00abc\xffdef",
        b"\x05\x00\x01error text\xff\x02decided\xff\xf0\x9f\x98\x80\xf0\x9f\x98\x80",
        b"\x00\x00anything",
        b"\xff\xff\xc3\xa9\xff\xe4\xb8\xad",
    ];
    for case in cases {
        crate::testkit::budget::fuzz_batch(case);
    }
    let long = [
        &[40u8, 0][..],
        &"😀a\n".repeat(300).into_bytes(),
        b"\xff",
        &"b".repeat(900).into_bytes(),
    ]
    .concat();
    crate::testkit::budget::fuzz_batch(&long);
}
