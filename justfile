# Wrappers only: the README's two commands need nothing but the Rust toolchain.
# Install just with `cargo install just` or `pip install rust-just`.

# Run the whole scenario suite against the built-in reference (issue 5).
conformance *ARGS:
    cargo run --release -p toolpass -- run {{ARGS}}

# The test command CI runs.
test:
    cargo test --workspace

# After a dependency change: bring workspace-hack/ up to date, so every build
# path compiles shared crates with one feature set (needs `cargo install
# cargo-hakari`; the architecture test `features.rs` says when it is due).
hakari:
    cargo hakari generate
    cargo hakari manage-deps --yes

# Everything CI checks, in CI's order.
ci:
    .ci/run

# The race harness (issue 11): symlink swaps under pipelined calls, lost
# updates and kill -9 against the reference server, one row per attack; exits 1
# when a number that must be 0 is not. Not part of `just test` (about a minute).
# `just race --help` lists the flags (--only, --iterations, --gate-appender, ...).
race *ARGS:
    cargo run --release -p toolpass-race -- {{ARGS}}

# Criterion benches for toolpass-core (matching, truncation).
# (Named: the package's `instructions` bench needs valgrind; `just bench-gate`.)
bench *ARGS:
    cargo bench -p toolpass-benches --bench matching --bench truncation {{ARGS}}

# The instruction-count gate (issue 13): the hot paths under callgrind, each
# count against benches/baselines/instructions.tsv; exits 1 on a rise over 2%.
# Needs valgrind and gungraun-runner (`.ci/run` installs both).
bench-gate:
    scripts/bench-gate

# Rewrite the instruction-count baselines from a fresh run, on purpose (an
# accepted slowdown, a new bench, a speed-up to lock in); commit the table.
bench-bless:
    scripts/bench-gate --bless

# Run a fuzz target: matcher, sed, budget, framing, scenario or expected_failures (needs
# nightly + cargo-fuzz; fuzz/README.md).
fuzz TARGET="matcher" *ARGS:
    cd fuzz && cargo +nightly fuzz run {{TARGET}} {{ARGS}}

# Fill fuzz/corpus/ with the repository's scenarios, expected-failures files
# and JSON-RPC lines.
fuzz-corpus:
    scripts/fuzz-corpus

# grep_search's search against rg, git grep --no-index and grep -r on the crate
# sources, interleaved (needs rg: `apt-get install ripgrep`, or RG=/path/to/rg;
# GREP_ROUNDS=N, GREP_CORPUS=DIR).
bench-grep:
    cargo fetch
    cargo bench -p toolpass-benches --bench grep

# grep_search's search core under criterion on a generated tree (2 000 files),
# against a naive walk-read-and-match; needs nothing installed.
bench-grep-core *ARGS:
    cargo bench -p toolpass-benches --bench grep_core {{ARGS}}

# Install an adapter's pinned peer package (npm ci, no install scripts, scratch HOME).
adapter-setup NAME:
    scripts/adapter-setup {{NAME}}

# The MCP test server against the TypeScript MCP SDK's client (Qwen Code's and
# Gemini CLI's); installs the pinned SDK (npm registry) and builds the fixture.
mcp-fixture-sdk-check:
    scripts/mcp-fixture-sdk-check

# `toolpass-server --mcp` against the TypeScript MCP SDK's client; installs the
# pinned SDK (npm registry) and builds the server.
mcp-server-sdk-check:
    scripts/mcp-server-sdk-check

# Regenerate Qwen Code's own verdicts that the reference's read-only shell
# judgement is tested against (after `just adapter-setup qwen-code`).
qwen-shell-cases PACKAGE="conformance/adapters/qwen-code/node_modules/@qwen-code/qwen-code":
    node scripts/qwen-shell-safety-cases.mjs {{PACKAGE}} > reference/toolpass-core/tests/qwen_shell_safety/cases.rs
    cargo fmt --all

# Regenerate the output budgets' cases from Qwen Code's own finalizer and
# persisted stub (the package's version is checked by the test).
qwen-budget-cases PACKAGE="conformance/adapters/qwen-code/node_modules/@qwen-code/qwen-code":
    node scripts/qwen-budget-cases.mjs {{PACKAGE}} > reference/toolpass-core/tests/qwen_budget/cases.json

# Install every adapter's peer (npm registry), run the suite against the
# reference and each peer, and write target/matrix/{index.html,matrix.md,badges/}.
peers:
    scripts/peers

# Time the scenarios' calls: the reference against the installed Node peers
# (after `just peers` or `just adapter-setup NAME`).
bench-peers *ARGS:
    cargo run --release -p toolpass -- bench --impl reference --impl qwen-code --impl gemini-cli {{ARGS}}

# How far `toolpass bench --baseline` holds on this machine: false regressions
# of the reference against itself, catches of a 30%-delayed relay (README).
bench-gate-robustness RUNS="10" *ARGS:
    scripts/bench-gate-robustness {{RUNS}} {{ARGS}}
