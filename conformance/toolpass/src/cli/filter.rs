//! Which scenarios a command takes: `--filter`, `--tag`, `--level`,
//! `--area`, `--profile`, and `--partition`'s shard of them. Shared by
//! `list`, `run` and `bench`, so all select the same scenarios from the same
//! flags.
//!
//! Each flag may be repeated, and a scenario must match at least one value
//! of every flag given; a flag not given lets every scenario through.

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use toolpass::partition::Partition;
use toolpass::report::{Filters, SuiteProfile};
use toolpass_scenario::{Level, Scenario};

#[derive(Debug, Args)]
pub(super) struct FilterArgs {
    /// Only ids matching this glob (`*` stays within one segment, `**`
    /// crosses them: `edit/**`, `*/fuzzy/*`).
    #[arg(long = "filter", value_name = "GLOB")]
    globs: Vec<String>,
    /// Only scenarios with this tag.
    #[arg(long = "tag", value_name = "TAG")]
    tags: Vec<String>,
    /// Only scenarios of this level.
    #[arg(long = "level", value_name = "LEVEL")]
    levels: Vec<LevelArg>,
    /// Only scenarios of this area: the first segment of the id (`edit`).
    #[arg(long = "area", value_name = "AREA")]
    areas: Vec<String>,
    /// Which part of the suite: `full` (every scenario) or `safety` (the
    /// safety profile: scenarios tagged `safety`, judging only what every
    /// tool layer must guarantee whatever its design: confinement to the
    /// root, no lost or corrupted bytes, edits that land exactly or not at
    /// all).
    #[arg(long, value_name = "PROFILE", default_value = "full")]
    profile: ProfileArg,
    /// Only shard K of N (`hash:K/N`, nextest's syntax, K from 1): the
    /// scenarios whose id's XXH64 hash is K - 1 modulo N. Stable across
    /// runs and machines, every scenario in exactly one shard, whatever
    /// the other filters; `toolpass merge` joins the shards' reports.
    #[arg(long, value_name = "hash:K/N")]
    partition: Option<Partition>,
}

/// `--profile`; mirrors [`SuiteProfile`], which is not a clap type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ProfileArg {
    Full,
    Safety,
}

impl From<ProfileArg> for SuiteProfile {
    fn from(profile: ProfileArg) -> SuiteProfile {
        match profile {
            ProfileArg::Full => SuiteProfile::Full,
            ProfileArg::Safety => SuiteProfile::Safety,
        }
    }
}

/// The levels as flags take them; mirrors [`Level`], which is not a clap
/// type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LevelArg {
    Required,
    Recommended,
    Optional,
    Pending,
}

impl From<LevelArg> for Level {
    fn from(level: LevelArg) -> Level {
        match level {
            LevelArg::Required => Level::Required,
            LevelArg::Recommended => Level::Recommended,
            LevelArg::Optional => Level::Optional,
            LevelArg::Pending => Level::Pending,
        }
    }
}

/// The compiled filters.
#[derive(Debug)]
pub(super) struct Filter {
    globs: Option<GlobSet>,
    tags: Vec<String>,
    levels: Vec<Level>,
    areas: Vec<String>,
    profile: SuiteProfile,
    partition: Option<Partition>,
}

impl FilterArgs {
    /// The flags as given, for a report's header.
    pub(super) fn describe(&self) -> Filters {
        Filters {
            filter: self.globs.clone(),
            tag: self.tags.clone(),
            level: self.levels.iter().map(|&l| l.into()).collect(),
            area: self.areas.clone(),
            profile: self.profile.into(),
        }
    }

    /// The profile the run takes.
    pub(super) fn profile(&self) -> SuiteProfile {
        self.profile.into()
    }

    /// The shard the command takes, if `--partition` was given.
    pub(super) fn partition(&self) -> Option<Partition> {
        self.partition
    }

    /// Whether any filter flag was given: a run that may leave scenarios
    /// out of the suite. `--partition` is not one: its shards add up to the
    /// suite (what `toolpass merge` relies on).
    pub(super) fn is_set(&self) -> bool {
        !(self.globs.is_empty()
            && self.tags.is_empty()
            && self.levels.is_empty()
            && self.areas.is_empty()
            && self.profile == ProfileArg::Full)
    }

    pub(super) fn compile(&self) -> anyhow::Result<Filter> {
        let globs = if self.globs.is_empty() {
            None
        } else {
            let mut set = GlobSetBuilder::new();
            for glob in &self.globs {
                // Ids use `/` between segments, so `*` behaves as in a path.
                let glob = GlobBuilder::new(glob)
                    .literal_separator(true)
                    .build()
                    .with_context(|| format!("invalid --filter glob `{glob}`"))?;
                set.add(glob);
            }
            Some(
                set.build()
                    .context("failed to compile the --filter globs")?,
            )
        };
        Ok(Filter {
            globs,
            tags: self.tags.clone(),
            levels: self.levels.iter().map(|&l| l.into()).collect(),
            areas: self.areas.clone(),
            profile: self.profile.into(),
            partition: self.partition,
        })
    }
}

impl Filter {
    pub(super) fn matches(&self, scenario: &Scenario) -> bool {
        let area = scenario.id.split('/').next().unwrap_or_default();
        self.globs.as_ref().is_none_or(|g| g.is_match(&scenario.id))
            && (self.tags.is_empty() || self.tags.iter().any(|t| scenario.tags.contains(t)))
            && (self.levels.is_empty() || self.levels.contains(&scenario.level.value))
            && (self.areas.is_empty() || self.areas.iter().any(|a| a == area))
            && self.profile.takes(&scenario.tags)
    }

    /// Whether the scenario is in the `--partition` shard (all are without
    /// one).
    pub(super) fn in_shard(&self, scenario: &Scenario) -> bool {
        self.partition.is_none_or(|p| p.takes(&scenario.id))
    }
}
