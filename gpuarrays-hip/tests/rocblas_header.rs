//! The rocBLAS FFI table (`platform/amd/rocblas.rs`) against rocBLAS's published C prototypes.
//!
//! No machine we build on has rocBLAS, so the table cannot be checked by linking. Instead this
//! test reads the prototypes (tests/data/rocblas-prototypes.h: copied verbatim from rocBLAS's
//! headers at a named commit; and, where ROCm is installed, the installed
//! `rocblas/internal/rocblas-*.h` under `$ROCM_PATH` or `/opt/rocm`), maps each C parameter
//! type to the Rust type the table must use for it (`rocblas_int` → `i32`, `const float*` →
//! `*const f32`, …), and compares with the table's own `SIGNATURES` (the Rust signatures as
//! written in the table). It also checks the enum values the platform passes.
//!
//! What it checks: every symbol the table declares exists in the header, with the same number
//! of parameters, each of the mapped Rust type, and the same return type; the optional and
//! required symbol lists name exactly the table's functions. What it cannot check: that a
//! given librocblas build exports the symbols (the loader reports that at run time, as a
//! typed error), and the ILP64 build (`rocblas_int` = `int64_t`), which we do not support.

use gpuarrays_hip::platform::amd::rocblas::{
    DATATYPE_BF16_R, DATATYPE_F16_R, DATATYPE_F32_R, DEFAULT_MATH, GEMM_ALGO_STANDARD,
    OPERATION_NONE, ROCBLAS, RocblasFns, STATUS_SUCCESS, XF32_XDL_MATH_OP,
};
use std::collections::BTreeMap;

const FIXTURE: &str = include_str!("data/rocblas-prototypes.h");

/// The Rust type the table must use for a C type of rocBLAS's API.
fn rust_type(c: &str) -> Option<&'static str> {
    Some(match c {
        "rocblas_handle" => "RocblasHandle",
        "rocblas_handle*" => "*mutRocblasHandle",
        "hipStream_t" => "HipStream",
        "rocblas_status" | "rocblas_operation" | "rocblas_math_mode" | "rocblas_datatype"
        | "rocblas_gemm_algo" | "rocblas_int" | "int32_t" => "i32",
        "uint32_t" => "u32",
        "rocblas_stride" => "i64",
        "size_t" => "usize",
        "char*" => "*mutc_char",
        "constchar*" => "*constc_char",
        "constvoid*" => "*constc_void",
        "void*" => "*mutc_void",
        "constfloat*" => "*constf32",
        "float*" => "*mutf32",
        "constdouble*" => "*constf64",
        "double*" => "*mutf64",
        "constrocblas_float_complex*" => "*const[f32;2]",
        "rocblas_float_complex*" => "*mut[f32;2]",
        "constrocblas_double_complex*" => "*const[f64;2]",
        "rocblas_double_complex*" => "*mut[f64;2]",
        _ => return None,
    })
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `name → (return type, parameter types)` of every `ROCBLAS_EXPORT` prototype in `text`,
/// types with whitespace removed and parameter names dropped.
fn prototypes(text: &str) -> BTreeMap<String, (String, Vec<String>)> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(i) = rest.find("ROCBLAS_EXPORT") {
        rest = &rest[i + "ROCBLAS_EXPORT".len()..];
        let Some(open) = rest.find('(') else { break };
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        let head = rest[..open].trim();
        let params = &rest[open + 1..open + close];
        rest = &rest[open + close..];
        // A function-like macro or attribute line, not a prototype.
        if head.contains('\n') && head.lines().count() > 2 {
            continue;
        }
        let Some(split) = head.rfind(|c: char| c.is_whitespace() || c == '*') else {
            continue;
        };
        let (ret, name) = (
            squash(&head[..=split]),
            head[split + 1..].trim().to_string(),
        );
        let params: Vec<String> = params
            .split(',')
            .map(|p| {
                let p = p.trim();
                // Drop the parameter name: the last identifier after the type.
                let cut = p
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .map_or(0, |i| i + 1);
                squash(&p[..cut])
            })
            .filter(|p| !p.is_empty() && p != "void")
            .collect();
        out.insert(name, (ret, params));
    }
    out
}

/// `fn(A, B) -> R` as stringified by the table macro → (return, parameters), squashed.
fn rust_signature(sig: &str) -> (String, Vec<String>) {
    let sig = squash(sig);
    let inner = sig
        .strip_prefix("fn(")
        .expect("table signatures start with fn(");
    let close = inner.rfind(')').expect("closing parenthesis");
    let ret = inner[close + 1..].trim_start_matches("->").to_string();
    let mut params = Vec::new();
    let (mut depth, mut start) = (0, 0);
    let args = &inner[..close];
    for (i, c) in args.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                params.push(args[start..i].to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !args[start..].is_empty() {
        params.push(args[start..].to_string());
    }
    (ret, params)
}

fn check_against(header: &BTreeMap<String, (String, Vec<String>)>, source: &str) {
    for (name, sig) in RocblasFns::SIGNATURES {
        let (c_ret, c_params) = header
            .get(*name)
            .unwrap_or_else(|| panic!("{source}: no prototype of {name}"));
        let (r_ret, r_params) = rust_signature(sig);
        let want_ret =
            rust_type(c_ret).unwrap_or_else(|| panic!("{name}: unmapped C type {c_ret}"));
        assert_eq!(r_ret, want_ret, "{source}: {name} returns {c_ret}");
        assert_eq!(
            r_params.len(),
            c_params.len(),
            "{source}: {name} takes {} parameters: {c_params:?}",
            c_params.len()
        );
        for (i, (r, c)) in r_params.iter().zip(c_params).enumerate() {
            let want = rust_type(c).unwrap_or_else(|| panic!("{name}: unmapped C type {c}"));
            assert_eq!(r, want, "{source}: {name} parameter {i} is {c}");
        }
    }
}

#[test]
fn the_table_matches_the_published_prototypes() {
    let header = prototypes(FIXTURE);
    assert!(
        header.len() >= RocblasFns::SIGNATURES.len(),
        "{:?}",
        header.keys()
    );
    check_against(&header, "tests/data/rocblas-prototypes.h");
}

#[test]
fn the_symbol_lists_name_exactly_the_tables_functions() {
    let mut listed: Vec<&str> = ROCBLAS
        .required
        .iter()
        .chain(ROCBLAS.optional)
        .copied()
        .collect();
    let mut table: Vec<&str> = RocblasFns::SIGNATURES.iter().map(|(n, _)| *n).collect();
    listed.sort_unstable();
    table.sort_unstable();
    assert_eq!(listed, table);
}

#[test]
fn enum_values_are_the_headers() {
    let value = |name: &str| -> i32 {
        let at = FIXTURE
            .find(&format!("{name} "))
            .unwrap_or_else(|| panic!("{name} not in the fixture"));
        let rest = &FIXTURE[at..];
        let eq = rest.find('=').expect("=");
        let v: String = rest[eq + 1..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_hexdigit() || *c == 'x')
            .collect();
        match v.strip_prefix("0x") {
            Some(h) => i32::from_str_radix(h, 16).expect("hex"),
            None => v.parse().expect("decimal"),
        }
    };
    assert_eq!(value("rocblas_operation_none"), OPERATION_NONE);
    assert_eq!(value("rocblas_status_success"), STATUS_SUCCESS);
    assert_eq!(value("rocblas_default_math"), DEFAULT_MATH);
    assert_eq!(value("rocblas_xf32_xdl_math_op"), XF32_XDL_MATH_OP);
    assert_eq!(value("rocblas_datatype_f16_r"), DATATYPE_F16_R);
    assert_eq!(value("rocblas_datatype_f32_r"), DATATYPE_F32_R);
    assert_eq!(value("rocblas_datatype_bf16_r"), DATATYPE_BF16_R);
    assert_eq!(value("rocblas_gemm_algo_standard"), GEMM_ALGO_STANDARD);
}

/// Where ROCm is installed, the same check against its headers (else a printed skip).
#[test]
fn the_table_matches_an_installed_header_where_there_is_one() {
    let roots: Vec<std::path::PathBuf> = ["ROCM_PATH", "HIP_PATH"]
        .iter()
        .filter_map(|v| std::env::var_os(v).map(std::path::PathBuf::from))
        .chain([std::path::PathBuf::from("/opt/rocm")])
        .collect();
    for root in roots {
        let dir = root.join("include/rocblas/internal");
        let files = ["rocblas-auxiliary.h", "rocblas-functions.h"];
        let texts: Vec<String> = files
            .iter()
            .filter_map(|f| std::fs::read_to_string(dir.join(f)).ok())
            .collect();
        if texts.len() == files.len() {
            check_against(&prototypes(&texts.concat()), &dir.display().to_string());
            return;
        }
    }
    eprintln!("skipped: no installed rocBLAS headers (ROCM_PATH, HIP_PATH, /opt/rocm)");
}

#[test]
fn the_parser_reads_parameter_types_and_names_apart() {
    let p = prototypes(
        "ROCBLAS_EXPORT rocblas_status f(rocblas_handle h,\n const float*  alpha, rocblas_int batch_count);",
    );
    assert_eq!(
        p.get("f"),
        Some(&(
            "rocblas_status".to_string(),
            vec![
                "rocblas_handle".into(),
                "constfloat*".into(),
                "rocblas_int".into()
            ]
        ))
    );
    assert_eq!(
        rust_signature("fn(* mut RocblasHandle, * const [f32 ; 2], i32) -> i32"),
        (
            "i32".into(),
            vec![
                "*mutRocblasHandle".into(),
                "*const[f32;2]".into(),
                "i32".into()
            ]
        )
    );
}
