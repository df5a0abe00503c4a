use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};
use std::thread;
use std::time::Duration;

use super::*;
use crate::fake_tool::fake;

fn declared(registry: &Registry) -> Vec<String> {
    let declarations = registry.declarations();
    declarations
        .tools
        .iter()
        .map(|t| t.name().to_owned())
        .collect()
}

#[test]
fn concurrent_lookups_of_one_factory_build_it_once() {
    let registry = Arc::new(Registry::new([]));
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&runs);
    registry.register_factory(
        "slow",
        Box::new(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            // Long enough that every lookup arrives while it runs.
            thread::sleep(Duration::from_millis(50));
            Ok(fake("slow").arc())
        }),
    );
    let barrier = Arc::new(Barrier::new(8));
    let lookups: Vec<_> = (0..8)
        .map(|_| {
            let (registry, barrier) = (Arc::clone(&registry), Arc::clone(&barrier));
            thread::spawn(move || {
                barrier.wait();
                registry.get("slow").expect("registered")
            })
        })
        .collect();
    let tools: Vec<Arc<dyn Tool>> = lookups.into_iter().map(|l| l.join().unwrap()).collect();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert!(tools.windows(2).all(|w| Arc::ptr_eq(&w[0], &w[1])));
    // Built now: a later lookup does not run it either.
    registry.get("slow").unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[test]
fn a_failed_factory_is_tried_again_on_the_next_lookup() {
    let registry = Registry::new([]);
    let attempts = Mutex::new(0);
    registry.register_factory(
        "flaky",
        Box::new(move || {
            let mut attempts = attempts.lock().unwrap();
            *attempts += 1;
            if *attempts == 1 {
                Err("first attempt fails".to_owned())
            } else {
                Ok(fake("flaky").arc())
            }
        }),
    );
    assert_eq!(
        registry.ensure("flaky").err().as_deref(),
        Some("first attempt fails")
    );
    assert!(registry.get("flaky").is_some());
    assert!(registry.get("unknown").is_none());
}

#[test]
fn declarations_list_only_built_tools_and_name_the_factories_left() {
    let registry = Registry::new([]);
    registry.register(fake("read_file").arc());
    registry.register_factory("glob", Box::new(|| Ok(fake("glob").arc())));
    let before = registry.declarations();
    assert_eq!(before.unbuilt, ["glob"]);
    assert_eq!(declared(&registry), ["read_file"]);
    assert!(registry.warm_all().is_empty());
    assert!(registry.declarations().unbuilt.is_empty());
    assert_eq!(declared(&registry), ["glob", "read_file"]);
    let failing = Registry::new([]);
    failing.register_factory("broken", Box::new(|| Err("no module".to_owned())));
    assert_eq!(failing.warm_all(), ["broken: no module"]);
}

#[test]
fn the_deferral_table_has_four_rows() {
    let registry = Registry::new([]);
    registry.register(fake("eager").arc());
    registry.register(fake("tool_search").deferred().always_loaded().arc());
    registry.register(fake("cron_create").deferred().arc());
    registry.register(fake("monitor").deferred().arc());
    assert_eq!(declared(&registry), ["eager", "tool_search"]);
    assert!(registry.is_deferred_and_hidden("monitor"));
    assert!(!registry.is_deferred_and_hidden("tool_search"));
    assert!(registry.reveal("monitor"));
    assert!(!registry.reveal("monitor"), "revealed once");
    assert_eq!(declared(&registry), ["eager", "monitor", "tool_search"]);
    assert!(!registry.is_deferred_and_hidden("monitor"));
    registry.unreveal("monitor");
    assert_eq!(declared(&registry), ["eager", "tool_search"]);
}

#[test]
fn declarations_sort_as_locale_compare_does() {
    let registry = Registry::new([]);
    for name in ["toolA", "tool-a", "tool_b", "Edit", "edit2"] {
        registry.register(fake(name).arc());
    }
    assert_eq!(
        declared(&registry),
        ["Edit", "edit2", "tool_b", "tool-a", "toolA"]
    );
}

#[test]
fn disabled_names_and_aliases_are_refused_and_a_taken_name_keeps_its_tool() {
    let registry = Registry::new(["glob".to_owned(), "old_alias".to_owned()]);
    assert_eq!(
        registry.register(fake("glob").arc()),
        Registration::Disabled
    );
    let mut aliased = fake("mcp__s__t").of_server("s");
    aliased.aliases = vec!["old_alias".to_owned()];
    assert_eq!(registry.register(aliased.arc()), Registration::Disabled);
    assert_eq!(
        registry.register_factory("glob", Box::new(|| Ok(fake("glob").arc()))),
        Registration::Disabled
    );
    let first = fake("edit").arc();
    assert_eq!(registry.register(Arc::clone(&first)), Registration::Added);
    assert_eq!(registry.register(fake("edit").arc()), Registration::Taken);
    assert!(Arc::ptr_eq(&registry.get("edit").unwrap(), &first));
    assert!(registry.names().iter().all(|n| n != "glob"));
}

#[test]
fn removing_a_server_takes_its_tools_and_their_reveals() {
    let registry = Registry::new([]);
    registry.register(fake("mcp__notes__read").of_server("notes").arc());
    registry.register(fake("mcp__notes__write").of_server("notes").arc());
    registry.register(fake("mcp__other__read").of_server("other").arc());
    registry.register(fake("edit").arc());
    registry.reveal("mcp__notes__read");
    let generation = registry.generation();
    assert_eq!(
        registry.remove_server("notes"),
        ["mcp__notes__read", "mcp__notes__write"]
    );
    assert!(registry.generation() > generation);
    assert!(!registry.is_revealed("mcp__notes__read"));
    assert_eq!(registry.names(), ["edit", "mcp__other__read"]);
    // Registered again (a reconnect): hidden, not revealed.
    registry.register(fake("mcp__notes__read").of_server("notes").arc());
    assert!(registry.is_deferred_and_hidden("mcp__notes__read"));
    assert!(registry.remove_server("nobody").is_empty());
}
