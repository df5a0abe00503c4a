//! `--partition hash:K/N`: one shard of a suite, for CI jobs that each run
//! a part and `toolpass merge` their reports into one.
//!
//! The syntax and semantics are nextest's `hash:M/N`: shards are numbered
//! from 1, and a scenario belongs to shard `xxh64(id) % N + 1` (XXH64 keyed with 0). The
//! hash is XXH64 of the id's UTF-8 bytes, a specified function (not Rust's
//! `DefaultHasher`, which may change between Rust versions), so a
//! scenario's shard is the same on every machine and every runner build.
//!
//! A scenario's shard depends on its id and N alone: every scenario is in
//! exactly one shard whatever else the suite holds, adding or removing a
//! scenario never moves another, and it makes no difference whether the
//! filters (`--filter`, `--tag`, ...) are applied before or after the
//! partition. Shards are uneven by chance, as nextest's hashed shards are.

use std::fmt;
use std::str::FromStr;

use xxhash_rust::xxh64::xxh64;

/// One hashed shard: `K` of `N`, `1 <= K <= N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Partition {
    shard: u64,
    total: u64,
}

impl Partition {
    /// Shard `shard` of `total`, or why that is no shard.
    pub fn new(shard: u64, total: u64) -> Result<Partition, String> {
        if total == 0 {
            return Err(format!(
                "hash:{shard}/{total}: the number of shards must be at least 1"
            ));
        }
        if !(1..=total).contains(&shard) {
            return Err(format!(
                "hash:{shard}/{total}: the shard must be from 1 to {total} (shards count from 1)"
            ));
        }
        Ok(Partition { shard, total })
    }

    /// Which shard this is, from 1.
    pub fn shard(self) -> u64 {
        self.shard
    }

    /// How many shards there are.
    pub fn total(self) -> u64 {
        self.total
    }

    /// Whether the scenario `id` belongs to this shard.
    pub fn takes(self, id: &str) -> bool {
        shard_of(id, self.total) == self.shard
    }
}

/// The shard, from 1, that the scenario `id` belongs to among `total`.
pub fn shard_of(id: &str, total: u64) -> u64 {
    xxh64(id.as_bytes(), 0) % total.max(1) + 1
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hash:{}/{}", self.shard, self.total)
    }
}

impl FromStr for Partition {
    type Err = String;

    fn from_str(text: &str) -> Result<Partition, String> {
        let Some(shards) = text.strip_prefix("hash:") else {
            return Err(format!(
                "`{text}`: a partition is `hash:K/N` (shard K of N, from 1), e.g. `hash:2/3`"
            ));
        };
        let Some((shard, total)) = shards.split_once('/') else {
            return Err(format!("`{text}`: expected `hash:K/N`, e.g. `hash:2/3`"));
        };
        let number = |what: &str, digits: &str| {
            digits
                .parse::<u64>()
                .map_err(|e| format!("`{text}`: the {what} `{digits}` is not a number: {e}"))
        };
        Partition::new(number("shard", shard)?, number("shard count", total)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nextests_syntax_and_refuses_anything_else() {
        let parsed: Partition = "hash:2/3".parse().unwrap();
        assert_eq!((parsed.shard(), parsed.total()), (2, 3));
        assert_eq!(parsed.to_string(), "hash:2/3");
        assert_eq!("hash:1/1".parse::<Partition>().unwrap().total(), 1);
        for (bad, wanted) in [
            ("count:1/2", "a partition is `hash:K/N`"),
            ("hash:1", "expected `hash:K/N`"),
            ("hash:0/2", "the shard must be from 1 to 2"),
            ("hash:3/2", "the shard must be from 1 to 2"),
            ("hash:1/0", "the number of shards must be at least 1"),
            ("hash:m/2", "the shard `m` is not a number"),
            ("hash:1/2/3", "the shard count `2/3` is not a number"),
            ("hash:-1/2", "the shard `-1` is not a number"),
        ] {
            let error = bad.parse::<Partition>().unwrap_err();
            assert!(error.contains(wanted), "{bad}: {error}");
        }
    }

    #[test]
    fn the_hash_is_xxh64_so_shards_never_move() {
        // XXH64 of "" keyed with 0 is the published test vector; the shard
        // of a real id is pinned so a change of hash cannot go unnoticed.
        assert_eq!(xxh64(b"", 0), 0xEF46_DB37_51D8_E999);
        assert_eq!(shard_of("", 1 << 32), 0x51D8_E999 + 1);
        let ids = ["edit/apply/basic", "read/offset", "safety/gbk-edit"];
        assert_eq!(
            ids.map(|id| xxh64(id.as_bytes(), 0)),
            [
                0xd819_edaa_4777_7fe8,
                0xb8d9_371f_06d4_06f4,
                0x0b59_96af_356d_90ae
            ]
        );
        assert_eq!(ids.map(|id| shard_of(id, 7)), [6, 3, 6]);
    }

    #[test]
    fn every_id_is_in_exactly_one_shard_of_any_count() {
        let ids: Vec<String> = (0..500)
            .map(|n| format!("area/{n}/case-{}", n * 7))
            .collect();
        for total in 1..=9 {
            let shards: Vec<Partition> = (1..=total)
                .map(|k| Partition::new(k, total).unwrap())
                .collect();
            for id in &ids {
                let owners = shards.iter().filter(|p| p.takes(id)).count();
                assert_eq!(owners, 1, "{id} is in {owners} of {total} shards");
            }
            // Hashed, not counted: no shard of a few is left empty by 500 ids.
            assert!(shards.iter().all(|p| ids.iter().any(|id| p.takes(id))));
        }
    }
}
