//! Which rank this process is: the variables launchers set (gpuarrays', torchrun's, Open
//! MPI's, Slurm's).

use super::env_lookup;
use crate::error::{HipError, Result};

/// Which rank this process is, of how many, and which device it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankInfo {
    /// This process's rank, from 0.
    pub rank: usize,
    /// How many ranks the group has.
    pub ranks: usize,
    /// The rank among those on this host; it picks the device (`HipBackend::new(local_rank)`).
    pub local_rank: usize,
}

/// Each launcher's variables: rank, group size, local rank; the first set wins.
const RANK_SOURCES: [[&str; 3]; 4] = [
    ["GPUARRAYS_RANK", "GPUARRAYS_RANKS", "GPUARRAYS_LOCAL_RANK"],
    ["RANK", "WORLD_SIZE", "LOCAL_RANK"],
    [
        "OMPI_COMM_WORLD_RANK",
        "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_LOCAL_RANK",
    ],
    ["SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"],
];

impl RankInfo {
    /// The rank and group size a launcher set: `GPUARRAYS_RANK`, `GPUARRAYS_RANKS` and
    /// `GPUARRAYS_LOCAL_RANK`, else torchrun's `RANK`, `WORLD_SIZE` and `LOCAL_RANK`, else
    /// Open MPI's `OMPI_COMM_WORLD_RANK`, `_SIZE` and `_LOCAL_RANK`, else Slurm's
    /// `SLURM_PROCID`, `SLURM_NTASKS` and `SLURM_LOCALID`; the first launcher whose rank and
    /// size are both set counts (for `GPUARRAYS_*`, one without the other is an error). The
    /// local rank defaults to the rank. `None` when no launcher's variables are set.
    pub fn from_env() -> Result<Option<RankInfo>> {
        Self::from_lookup(env_lookup)
    }

    /// The same as [`RankInfo::from_env`], reading variables through `get`.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Option<RankInfo>> {
        // The value of `var` if it is a number of at least `min`.
        let number =
            |var: &'static str, value: String, min: usize, expected: &'static str| match value
                .trim()
                .parse::<usize>()
            {
                Ok(n) if n >= min => Ok(n),
                _ => Err(HipError::InvalidConfig {
                    var,
                    value,
                    expected,
                }),
            };
        for (i, [rank_var, size_var, local_var]) in RANK_SOURCES.into_iter().enumerate() {
            let (rank, size) = match (get(rank_var), get(size_var)) {
                (Some(rank), Some(size)) => (rank, size),
                (None, None) => continue,
                (rank, _) if i == 0 => {
                    return Err(HipError::InvalidConfig {
                        var: if rank.is_some() { size_var } else { rank_var },
                        value: String::new(),
                        expected: "GPUARRAYS_RANK and GPUARRAYS_RANKS set together",
                    });
                }
                _ => continue,
            };
            let ranks = number(size_var, size, 1, "a group size of at least 1")?;
            let rank = number(rank_var, rank, 0, "a rank")?;
            if rank >= ranks {
                let expected = "a rank from 0 to the group size - 1";
                return Err(HipError::InvalidConfig {
                    var: rank_var,
                    value: rank.to_string(),
                    expected,
                });
            }
            let local_rank = match get(local_var) {
                Some(v) => number(local_var, v, 0, "a local rank (0 for the first on a host)")?,
                None => rank,
            };
            tracing::debug!(rank, ranks, local_rank, from = rank_var, "found the rank");
            return Ok(Some(RankInfo {
                rank,
                ranks,
                local_rank,
            }));
        }
        Ok(None)
    }
}
