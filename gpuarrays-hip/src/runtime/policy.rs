//! [`KernelPolicy`]: which of the kernels that compute the same results runs, and where
//! matrix products go, as one typed value.
//!
//! The runtime's configuration holds it ([`super::RuntimeConfig::kernels`], read from the
//! environment once, in `runtime/config.rs`); each backend copies it into its device's
//! kernel state (`DeviceKernels::policy`) and BLAS state when it is created, and the kernel
//! families read it from there. Why one value instead of a switch read inside each family:
//! what a backend runs is visible and settable on that backend (tests and benchmarks compare
//! variants on one backend in one run), and no kernel family reads the process environment
//! behind its caller.
//!
//! Every default below was chosen by measurement on the H200; each type's documentation
//! keeps the figure. Variants that lost their measurement and had no other use are retired:
//! - findall's one-byte mask loads: 1 GiB findall at 0.46× PyTorch against the 16-byte
//!   vector loads (2026-12-01); the byte kernels remain for masks not 16-byte aligned;
//! - a lower row length for the register sort: it beats the bitonic tile and the one-block
//!   radix sort at every length it takes (2^26 f32 keys, rows of 128: 0.56 / 2.93 / 22.5 ms;
//!   1024: 0.83 / 4.87 / 5.80 ms; 2048: 0.95 / 5.64 / 3.05 ms);
//! - 12, 20 or 24 keys per thread in a onesweep pass instead of 16 (2^28 f32 in one row:
//!   11.2, 10.5, 10.16 ms against 10.25 ms; 24 keys slower on the suite's rows);
//! - other grid sizes of split and strided-axis reductions than 16 blocks per multiprocessor
//!   (1 GiB f32 sum 243.3–244.4 µs at 16 against 247.6–249.3 µs at 8; the axis-0 sum of
//!   8192² f32 at 1.00× PyTorch at 16 against 0.96× at 32 and 0.86× at 64).

use crate::error::{HipError, Result};
use crate::platform::BlasMath;

/// `GPUARRAYS_SORT`: [`KernelPolicy::sort`].
pub const SORT_ENV: &str = "GPUARRAYS_SORT";
/// `GPUARRAYS_SCAN`: [`KernelPolicy::row_scan`].
pub const SCAN_ENV: &str = "GPUARRAYS_SCAN";
/// `GPUARRAYS_REDUCE_COLS`: [`KernelPolicy::col_reduce`].
pub const REDUCE_COLS_ENV: &str = "GPUARRAYS_REDUCE_COLS";
/// `GPUARRAYS_ARG_REDUCE`: [`KernelPolicy::arg_reduce`].
pub const ARG_REDUCE_ENV: &str = "GPUARRAYS_ARG_REDUCE";
/// `GPUARRAYS_REDUCE`: [`KernelPolicy::split_reduce`].
pub const REDUCE_ENV: &str = "GPUARRAYS_REDUCE";
/// `GPUARRAYS_MATMUL`: `auto` (default), `blas` or `kernel` ([`KernelPolicy::matmul`]).
pub const MATMUL_ENV: &str = "GPUARRAYS_MATMUL";
/// `GPUARRAYS_ALLOW_TF32`: `1`/`on` lets single-precision products use reduced-precision
/// tensor-core math (TF32 / xf32); off by default ([`KernelPolicy::blas_math`]).
pub const ALLOW_TF32_ENV: &str = "GPUARRAYS_ALLOW_TF32";

/// Which kernels run where several compute the same results. See the
/// [module documentation](self) for where it comes from and what was retired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelPolicy {
    /// Which sort runs (`GPUARRAYS_SORT`).
    pub sort: SortAlgorithm,
    /// The row scan, or `None` for the automatic choice (`GPUARRAYS_SCAN`).
    pub row_scan: Option<RowScan>,
    /// How strided axes are reduced (`GPUARRAYS_REDUCE_COLS`).
    pub col_reduce: ColReduce,
    /// How argmin/argmax reduce long rows (`GPUARRAYS_ARG_REDUCE`).
    pub arg_reduce: ArgReduce,
    /// How split row reductions combine their partials (`GPUARRAYS_REDUCE`).
    pub split_reduce: SplitReduce,
    /// Where matrix products of f32, f64 and complex types run (`GPUARRAYS_MATMUL`).
    pub matmul: MatmulRoute,
    /// The precision of the vendor BLAS's single-precision products
    /// (`GPUARRAYS_ALLOW_TF32`).
    pub blas_math: BlasMath,
}

impl KernelPolicy {
    /// The defaults, overridden by the variables `var` returns a value for (the environment,
    /// in `runtime/config.rs`). Sort, scan and reduction names not understood are the
    /// default (sort with a warning); a bad matmul route or precision is an error.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<KernelPolicy> {
        let is = |name: &str, value: &str| {
            var(name).is_some_and(|v| v.trim().eq_ignore_ascii_case(value))
        };
        let sort = match var(SORT_ENV) {
            Some(v) => SortAlgorithm::parse(&v).unwrap_or_else(|| {
                tracing::warn!(
                    "{SORT_ENV}={v:?} is not one of auto, radix, bitonic, rows, onesweep, register; using auto"
                );
                SortAlgorithm::Auto
            }),
            None => SortAlgorithm::Auto,
        };
        Ok(KernelPolicy {
            sort,
            row_scan: RowScan::parse(&var(SCAN_ENV).unwrap_or_default()),
            col_reduce: if is(REDUCE_COLS_ENV, "threads") {
                ColReduce::Threads
            } else {
                ColReduce::Slices
            },
            arg_reduce: if is(ARG_REDUCE_ENV, "perelement") {
                ArgReduce::PerElement
            } else {
                ArgReduce::PerThreadBest
            },
            split_reduce: if is(REDUCE_ENV, "twopass") {
                SplitReduce::TwoPass
            } else {
                SplitReduce::OneLaunch
            },
            matmul: MatmulRoute::parse(var(MATMUL_ENV).as_deref())?,
            blas_math: parse_math(var(ALLOW_TF32_ENV).as_deref())?,
        })
    }
}

/// Which sort runs (see `kernels/sort/mod.rs` for the table of the automatic choice).
///
/// By row length: rows of up to 2048 keys (padded) sort in registers, longer rows that fit
/// one block take the one-block radix sort, longer ones the onesweep radix sort. Against
/// the bitonic tile, on the H200 (docs/results/hip-scan-sort.md), 2^26 f32 keys in rows of 128 / 256 / 512 / 1024 / 2048
/// (ms, bitonic vs radix): 2.9 vs 22.5, 3.5 vs 14.4, 4.1 vs 10.4, 4.9 vs 5.8, 5.6 vs 3.0; the
/// register sort beats both at every one of those lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortAlgorithm {
    /// By row length, as above.
    #[default]
    Auto,
    /// The bitonic network for every length (the sort before the radix sort existed).
    Bitonic,
    /// Radix for every length: one block per row where the row fits, onesweep beyond.
    Rows,
    /// The onesweep radix sort for every length (exercises the look-back on small inputs).
    Onesweep,
    /// The register sort for every length it takes (rows of up to 2048); `Auto` beyond.
    Register,
}

impl SortAlgorithm {
    /// `auto`/`radix`, `bitonic`, `rows`, `onesweep`, `register` (case-insensitive); `None`
    /// for anything else.
    pub fn parse(s: &str) -> Option<SortAlgorithm> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "auto" | "radix" => Some(SortAlgorithm::Auto),
            "bitonic" => Some(SortAlgorithm::Bitonic),
            "rows" => Some(SortAlgorithm::Rows),
            "onesweep" => Some(SortAlgorithm::Onesweep),
            "register" => Some(SortAlgorithm::Register),
            _ => None,
        }
    }
}

/// How rows are scanned when one is forced ([`KernelPolicy::row_scan`]; `None` chooses per
/// scan: one pass per row where there are rows enough to fill the device, else the
/// reduce-then-scan over register tiles).
///
/// Measured on the H200 (2026-12-01, docs/results/hip-scan-sort.md): the reduce-then-scan was as fast or faster than the
/// single-pass look-back on every row (16384 × 8192 i64: 0.824 ms vs 1.073 ms); 2^26 f32 in
/// one row took 0.619 ms single-pass vs 0.326 ms with the shared-memory three-pass scan. One
/// pass per row, where it is chosen: 16384 × 8192 i64 along rows 0.54 ms against 0.83 ms for
/// the reduce-then-scan (2026-12-02). The details are in `kernels/scan/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowScan {
    /// One pass; carries from a fixed tree of tile aggregates.
    Lookback,
    /// Tile totals, a scan of them (recursively), then the tiles with their carries, the
    /// tiles staged through shared memory with scalar loads (the scan before `ReduceScan`).
    Multipass,
    /// The same three passes over register tiles with 16-byte loads and stores.
    ReduceScan,
    /// One block per row walking its tiles in order with a running carry: one pass, the
    /// input read once. Needs many rows to fill the device.
    RowPass,
}

impl RowScan {
    /// Every row scan, for tests and benchmarks that run each one.
    pub const ALL: [RowScan; 4] = [
        RowScan::Lookback,
        RowScan::Multipass,
        RowScan::ReduceScan,
        RowScan::RowPass,
    ];

    /// `lookback`, `multipass`, `reducescan`, `rowpass` (case-insensitive); `None` (the
    /// automatic choice) for anything else.
    pub fn parse(s: &str) -> Option<RowScan> {
        match s.trim().to_ascii_lowercase().as_str() {
            "lookback" => Some(RowScan::Lookback),
            "multipass" => Some(RowScan::Multipass),
            "reducescan" => Some(RowScan::ReduceScan),
            "rowpass" => Some(RowScan::RowPass),
            _ => None,
        }
    }
}

/// How strided axes are reduced.
///
/// `ga_cols_slices` by default: Nsight Compute measured `ga_cols` latency-bound at 56 % of
/// DRAM bandwidth on 8192² f32 on the H200 (2026-12-01, docs/results/hip-elementwise-reduce.md).
/// `Threads` stays for comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColReduce {
    /// `ga_cols`: a thread per (column group, split).
    Threads,
    /// `ga_cols_slices`: a block per (32 column groups, split), batched loads.
    #[default]
    Slices,
}

/// How argmin/argmax reduce long rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArgReduce {
    /// `ga_rows_block_vec_best`: a per-thread first best with two compares per element.
    #[default]
    PerThreadBest,
    /// `ga_rows_block_vec`: every element combined into a (value, index) accumulator (the
    /// kernel before 2026-12-02).
    PerElement,
}

/// How split row reductions combine their partials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SplitReduce {
    /// In the same launch: the last block of each output combines them.
    #[default]
    OneLaunch,
    /// In a second launch (the kernels before the partials were combined in one); a fallback.
    TwoPass,
}

/// Where matrix products of the types the vendor BLAS has (f32, f64 and both complex types) run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatmulRoute {
    /// The vendor BLAS where its library loads; the backend's own kernel otherwise (with a
    /// warning, once per device).
    #[default]
    Auto,
    /// The vendor BLAS only: a missing library is an error.
    Blas,
    /// The backend's own kernel only (for comparisons, or where the library misbehaves).
    Kernel,
}

impl MatmulRoute {
    /// The route named by `value` (`GPUARRAYS_MATMUL`'s value); `None` is the default.
    pub fn parse(value: Option<&str>) -> Result<MatmulRoute> {
        match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("auto") => Ok(MatmulRoute::Auto),
            Some("blas") => Ok(MatmulRoute::Blas),
            Some("kernel") => Ok(MatmulRoute::Kernel),
            Some(_) => Err(HipError::InvalidConfig {
                var: MATMUL_ENV,
                value: value.unwrap_or_default().to_string(),
                expected: "auto, blas or kernel",
            }),
        }
    }
}

/// The precision named by `value` (`GPUARRAYS_ALLOW_TF32`'s value); exact unless asked.
pub fn parse_math(value: Option<&str>) -> Result<BlasMath> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None | Some("") | Some("0") | Some("off") | Some("false") => Ok(BlasMath::Exact),
        Some("1") | Some("on") | Some("true") => Ok(BlasMath::ReducedF32),
        Some(_) => Err(HipError::InvalidConfig {
            var: ALLOW_TF32_ENV,
            value: value.unwrap_or_default().to_string(),
            expected: "1/on or 0/off",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_measured_winners() {
        let p = KernelPolicy::from_vars(|_| None).ok();
        assert_eq!(p, Some(KernelPolicy::default()));
        let p = KernelPolicy::default();
        assert_eq!(p.sort, SortAlgorithm::Auto);
        assert_eq!(p.row_scan, None);
        assert_eq!(p.col_reduce, ColReduce::Slices);
        assert_eq!(p.arg_reduce, ArgReduce::PerThreadBest);
        assert_eq!(p.split_reduce, SplitReduce::OneLaunch);
        assert_eq!(p.matmul, MatmulRoute::Auto);
        assert_eq!(p.blas_math, BlasMath::Exact);
    }

    #[test]
    fn variables_set_the_fields() {
        let vars = |name: &str| {
            Some(
                match name {
                    SORT_ENV => "Bitonic",
                    SCAN_ENV => " rowpass",
                    REDUCE_COLS_ENV => "threads",
                    ARG_REDUCE_ENV => "PerElement",
                    REDUCE_ENV => "twopass",
                    MATMUL_ENV => "kernel",
                    ALLOW_TF32_ENV => "on",
                    _ => return None,
                }
                .to_string(),
            )
        };
        let p = KernelPolicy::from_vars(vars).ok();
        assert_eq!(
            p,
            Some(KernelPolicy {
                sort: SortAlgorithm::Bitonic,
                row_scan: Some(RowScan::RowPass),
                col_reduce: ColReduce::Threads,
                arg_reduce: ArgReduce::PerElement,
                split_reduce: SplitReduce::TwoPass,
                matmul: MatmulRoute::Kernel,
                blas_math: BlasMath::ReducedF32,
            })
        );
        // Unknown kernel names fall back to the defaults; a bad route is an error.
        let p = KernelPolicy::from_vars(|n| (n == MATMUL_ENV).then(|| "nonsense".to_string()));
        assert!(p.is_err());
        let p = KernelPolicy::from_vars(|n| (n == SORT_ENV).then(|| "nonsense".to_string()));
        assert_eq!(p.ok(), Some(KernelPolicy::default()));
    }

    #[test]
    fn routes_and_precision_parse_and_default_to_auto_and_exact() {
        assert_eq!(MatmulRoute::parse(None).ok(), Some(MatmulRoute::Auto));
        assert_eq!(
            MatmulRoute::parse(Some(" BLAS ")).ok(),
            Some(MatmulRoute::Blas)
        );
        assert_eq!(
            MatmulRoute::parse(Some("kernel")).ok(),
            Some(MatmulRoute::Kernel)
        );
        let e = MatmulRoute::parse(Some("cublas"))
            .err()
            .map(|e| e.to_string());
        assert!(
            e.is_some_and(|e| e.contains("GPUARRAYS_MATMUL") && e.contains("auto, blas or kernel"))
        );
        assert_eq!(parse_math(None).ok(), Some(BlasMath::Exact));
        assert_eq!(parse_math(Some("on")).ok(), Some(BlasMath::ReducedF32));
        assert_eq!(parse_math(Some("0")).ok(), Some(BlasMath::Exact));
        assert!(parse_math(Some("tf32")).is_err());
    }
}
