//! The NCCL/RCCL FFI table (`platform/nccl_api.rs`) against NCCL's and RCCL's published headers.
//!
//! No machine we build on has libnccl or librccl, and RCCL never runs where we test, so the
//! table cannot be checked by linking or calling. Instead this test reads the declarations in
//! tests/data/nccl_prototypes.h — copied verbatim, at named commits, from NVIDIA's
//! `src/nccl.h.in` (NVIDIA/nccl) and from RCCL's `src/nccl.h.in` (ROCm/rccl), in two sections —
//! and, where one is installed, the installed `nccl.h` / `rccl/rccl.h`. Each C parameter type
//! maps to the Rust type the table must use (`ncclComm_t` → `NcclComm`, `int` → `c_int`, the
//! enums → `i32`, `size_t` → `usize`, `cudaStream_t` / `hipStream_t` → `NcclStream`, …), and
//! the result is compared with the table's own `SIGNATURES` (the Rust signatures as written).
//!
//! Checked, for each header separately (RCCL's declarations are the ones the AMD platform
//! relies on): every symbol the table declares has a prototype, with the same number of
//! parameters, each of the mapped Rust type, and the same return type; the fixture's sections
//! declare nothing the table lacks; each section uses its vendor's stream type; the enum values
//! the platform passes or compares (`ncclSuccess`, `ncclInProgress`, `ncclSum` … `ncclMin`
//! through `values` and `red_op`, and every `CollectiveType`'s `data_type` against
//! `ncclInt8` … `ncclBfloat16`), read from the enum bodies (explicit values, implicit
//! increments, aliases such as `ncclChar = 0`); `NCCL_UNIQUE_ID_BYTES` is 128, `ncclUniqueId`
//! is a struct of that many `char`s, and `NcclUniqueId` has that size (alignment 1, as the C
//! struct, since it is passed by value). Not checked: that a given libnccl/librccl build
//! exports the symbols (the loader reports that at run time, as a typed error), the loader's
//! required/optional symbol lists (private; `ncclGetLastError` is optional, NCCL 2.13+), and
//! behaviour, which needs GPUs.

use gpuarrays_hip::platform::nccl_api::{NcclFns, NcclUniqueId, data_type, red_op, values};
use gpuarrays_hip::platform::{CollectiveType, ReduceOp};
use std::collections::{BTreeMap, BTreeSet};

const FIXTURE: &str = include_str!("data/nccl_prototypes.h");
const FIXTURE_PATH: &str = "tests/data/nccl_prototypes.h";

/// The two sections of the fixture: (marker, source name, the stream type its prototypes use).
const SECTIONS: [(&str, &str, &str); 2] = [
    (
        "/* ==== NVIDIA/nccl ",
        "NVIDIA/nccl src/nccl.h.in",
        "cudaStream_t",
    ),
    (
        "/* ==== ROCm/rccl ",
        "ROCm/rccl src/nccl.h.in",
        "hipStream_t",
    ),
];

/// The Rust type the table must use for a C type of NCCL's API (whitespace removed).
fn rust_type(c: &str) -> Option<&'static str> {
    Some(match c {
        "ncclComm_t" => "NcclComm",
        "ncclComm_t*" => "*mutNcclComm",
        "cudaStream_t" | "hipStream_t" => "NcclStream",
        // C enums, `int`-sized; the table writes them as i32.
        "ncclResult_t" | "ncclDataType_t" | "ncclRedOp_t" => "i32",
        "int" => "c_int",
        "int*" => "*mutc_int",
        "size_t" => "usize",
        "constvoid*" => "*constc_void",
        "void*" => "*mutc_void",
        "constchar*" => "*constc_char",
        "ncclUniqueId" => "NcclUniqueId",
        "ncclUniqueId*" => "*mutNcclUniqueId",
        _ => return None,
    })
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `text` without `/* */` and `//` comments.
fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        out.push(' ');
        rest = rest[i..].find("*/").map_or("", |j| &rest[i + j + 2..]);
    }
    out.push_str(rest);
    out.lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` without comments, preprocessor lines and `__attribute__((…))` markers.
fn clean(text: &str) -> String {
    let text: String = strip_comments(text)
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("__attribute__") {
        out.push_str(&rest[..i]);
        rest = &rest[i + "__attribute__".len()..];
        let mut depth = 0;
        let mut end = rest.len();
        for (j, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The value of `#define NAME value` in `text`.
fn define(text: &str, name: &str) -> Option<i64> {
    strip_comments(text).lines().find_map(|l| {
        let mut words = l.split_whitespace();
        (words.next() == Some("#define") && words.next() == Some(name))
            .then(|| words.next()?.parse().ok())
            .flatten()
    })
}

/// `name → (return type, parameter types)` of every function prototype in `text`, types with
/// whitespace removed and parameter names dropped (`()` and `(void)` give no parameters).
fn prototypes(text: &str) -> BTreeMap<String, (String, Vec<String>)> {
    let mut out = BTreeMap::new();
    for statement in clean(text).split(';') {
        // What follows the last brace: `extern "C" {`, struct and enum bodies are not prototypes.
        let s = statement
            .rsplit(['{', '}'])
            .next()
            .unwrap_or_default()
            .trim();
        if s.starts_with("typedef") || s.starts_with("extern") {
            continue;
        }
        let (Some(open), Some(close)) = (s.find('('), s.rfind(')')) else {
            continue;
        };
        let head = s[..open].trim();
        let Some(split) = head.rfind(|c: char| c.is_whitespace() || c == '*') else {
            continue;
        };
        let (ret, name) = (squash(&head[..=split]), head[split + 1..].to_string());
        let params: Vec<String> = s[open + 1..close]
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty() && *p != "void")
            .map(|p| {
                // Drop the parameter name: the last identifier after the type.
                let cut = p
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .map_or(0, |i| i + 1);
                assert!(cut > 0, "{name}: parameter `{p}` has no name");
                squash(&p[..cut])
            })
            .collect();
        out.insert(name, (ret, params));
    }
    out
}

/// `enum type name → [(enumerator, value)]` of every `typedef enum { … } name;` in `text`:
/// explicit values (decimal or hex literals), implicit ones one more than the previous;
/// `None` for an expression (e.g. `ncclMaxRedOp`) and the implicit ones after it.
fn enums(text: &str) -> BTreeMap<String, Vec<(String, Option<i64>)>> {
    let text = clean(text);
    let mut out = BTreeMap::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("typedef enum") {
        rest = &rest[i..];
        let (Some(open), Some(close)) = (rest.find('{'), rest.find('}')) else {
            break;
        };
        let body = &rest[open + 1..close];
        let Some(semi) = rest[close..].find(';') else {
            break;
        };
        let name = rest[close + 1..close + semi].trim().to_string();
        let mut entries = Vec::new();
        let mut next = Some(0i64);
        for entry in body.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (enumerator, value) = match entry.split_once('=') {
                Some((n, v)) => (n.trim(), parse_int(v.trim())),
                None => (entry, next),
            };
            entries.push((enumerator.to_string(), value));
            next = value.map(|v| v + 1);
        }
        out.insert(name, entries);
        rest = &rest[close + semi..];
    }
    out
}

fn parse_int(v: &str) -> Option<i64> {
    let (negative, digits) = match v.strip_prefix('-') {
        Some(d) => (true, d.trim()),
        None => (false, v),
    };
    let value = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => digits.parse().ok()?,
    };
    Some(if negative { -value } else { value })
}

/// The value of `enumerator` in enum `ty` of `parsed`: exactly one, and a literal.
fn enum_value(
    parsed: &BTreeMap<String, Vec<(String, Option<i64>)>>,
    source: &str,
    ty: &str,
    enumerator: &str,
) -> i32 {
    let entries = parsed
        .get(ty)
        .unwrap_or_else(|| panic!("{source}: no enum {ty}"));
    let found: Vec<Option<i64>> = entries
        .iter()
        .filter(|(n, _)| n == enumerator)
        .map(|(_, v)| *v)
        .collect();
    let [Some(v)] = found[..] else {
        panic!("{source}: {ty}::{enumerator} is declared {found:?}");
    };
    i32::try_from(v).expect("an int")
}

/// `fn(A, B) -> R` as stringified by the table macro → (return, parameters), squashed.
fn rust_signature(sig: &str) -> (String, Vec<String>) {
    let sig = squash(sig);
    let inner = sig
        .strip_prefix("fn(")
        .expect("table signatures start with fn(");
    let close = inner.rfind(')').expect("closing parenthesis");
    let ret = inner[close + 1..].trim_start_matches("->").to_string();
    let params = inner[..close]
        .split(',')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    (ret, params)
}

/// The table's signatures against the prototypes of one header. `all`: every symbol must be
/// declared (an installed header may be older than the table; its missing symbols are printed).
fn check_prototypes(header: &BTreeMap<String, (String, Vec<String>)>, source: &str, all: bool) {
    for (name, sig) in NcclFns::SIGNATURES {
        let Some((c_ret, c_params)) = header.get(*name) else {
            assert!(!all, "{source}: no prototype of {name}");
            eprintln!("{source}: no prototype of {name} (an older release?)");
            continue;
        };
        let (r_ret, r_params) = rust_signature(sig);
        let want_ret =
            rust_type(c_ret).unwrap_or_else(|| panic!("{source}: {name}: unmapped C type {c_ret}"));
        assert_eq!(r_ret, want_ret, "{source}: {name} returns {c_ret}");
        assert_eq!(
            r_params.len(),
            c_params.len(),
            "{source}: {name} takes {} parameters: {c_params:?}",
            c_params.len()
        );
        for (i, (r, c)) in r_params.iter().zip(c_params).enumerate() {
            let want =
                rust_type(c).unwrap_or_else(|| panic!("{source}: {name}: unmapped C type {c}"));
            assert_eq!(r, want, "{source}: {name} parameter {i} is {c}");
        }
    }
}

/// Every `CollectiveType`, with the `ncclDataType_t` enumerator it must map to.
fn data_types() -> Vec<(CollectiveType, &'static str)> {
    use CollectiveType::*;
    let all = [I8, U8, I32, U32, I64, U64, F16, F32, F64, BF16];
    // Exhaustive: a new variant fails to compile here until it is named (and added above).
    let name = |t: CollectiveType| match t {
        I8 => "ncclInt8",
        U8 => "ncclUint8",
        I32 => "ncclInt32",
        U32 => "ncclUint32",
        I64 => "ncclInt64",
        U64 => "ncclUint64",
        F16 => "ncclFloat16",
        F32 => "ncclFloat32",
        F64 => "ncclFloat64",
        BF16 => "ncclBfloat16",
    };
    all.into_iter().map(|t| (t, name(t))).collect()
}

/// Every `ReduceOp`, with its `ncclRedOp_t` enumerator and the `values` constant.
fn red_ops() -> Vec<(ReduceOp, &'static str, i32)> {
    let all = [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min];
    let expected = |op: ReduceOp| match op {
        ReduceOp::Sum => ("ncclSum", values::SUM),
        ReduceOp::Prod => ("ncclProd", values::PROD),
        ReduceOp::Max => ("ncclMax", values::MAX),
        ReduceOp::Min => ("ncclMin", values::MIN),
    };
    all.into_iter()
        .map(|op| {
            let (name, value) = expected(op);
            (op, name, value)
        })
        .collect()
}

/// The enum values and the unique id of one header.
fn check_values(text: &str, source: &str) {
    let parsed = enums(text);
    let value = |ty: &str, e: &str| enum_value(&parsed, source, ty, e);
    assert_eq!(
        value("ncclResult_t", "ncclSuccess"),
        values::SUCCESS,
        "{source}"
    );
    assert_eq!(
        value("ncclResult_t", "ncclInProgress"),
        values::IN_PROGRESS,
        "{source}"
    );
    for (op, name, constant) in red_ops() {
        let header = value("ncclRedOp_t", name);
        assert_eq!(header, constant, "{source}: {name} (values)");
        assert_eq!(header, red_op(op), "{source}: {name} (red_op({op:?}))");
    }
    for (t, name) in data_types() {
        assert_eq!(
            value("ncclDataType_t", name),
            data_type(t),
            "{source}: {name} (data_type({t:?}))"
        );
    }
    assert_eq!(
        define(text, "NCCL_UNIQUE_ID_BYTES"),
        Some(128),
        "{source}: NCCL_UNIQUE_ID_BYTES"
    );
    let flat = squash(&clean(text));
    assert!(
        flat.contains("typedefstruct{charinternal[NCCL_UNIQUE_ID_BYTES];}ncclUniqueId;"),
        "{source}: ncclUniqueId is not a struct of NCCL_UNIQUE_ID_BYTES chars"
    );
}

/// The fixture's section for `marker`: from it to the next section or the end.
fn section(marker: &str) -> &'static str {
    let start = FIXTURE
        .find(marker)
        .unwrap_or_else(|| panic!("{FIXTURE_PATH}: no section {marker}"));
    let body = &FIXTURE[start + marker.len()..];
    let end = body.find("/* ==== ").unwrap_or(body.len());
    &body[..end]
}

#[test]
fn the_table_matches_both_headers_prototypes() {
    let table: BTreeSet<&str> = NcclFns::SIGNATURES.iter().map(|(n, _)| *n).collect();
    for (marker, source, stream) in SECTIONS {
        let text = section(marker);
        let header = prototypes(text);
        check_prototypes(&header, source, true);
        let declared: BTreeSet<&str> = header.keys().map(String::as_str).collect();
        assert_eq!(
            declared, table,
            "{source}: the fixture's prototypes are the table's functions"
        );
        for (name, (_, params)) in &header {
            let other = SECTIONS.iter().map(|s| s.2).find(|s| s != &stream);
            assert!(
                !params.iter().any(|p| Some(p.as_str()) == other),
                "{source}: {name} takes another vendor's stream type"
            );
        }
        assert!(
            header.values().any(|(_, p)| p.iter().any(|p| p == stream)),
            "{source}: no prototype takes {stream}"
        );
    }
}

#[test]
fn enum_values_and_the_unique_id_are_both_headers() {
    for (marker, source, _) in SECTIONS {
        check_values(section(marker), source);
    }
    assert_eq!(std::mem::size_of::<NcclUniqueId>(), 128);
    assert_eq!(std::mem::align_of::<NcclUniqueId>(), 1);
}

/// Where NCCL or RCCL is installed, the same checks against its header (else a printed skip).
#[test]
fn the_table_matches_an_installed_header_where_there_is_one() {
    let env = |v: &str| std::env::var_os(v).map(std::path::PathBuf::from);
    let mut candidates: Vec<std::path::PathBuf> = Vec::new();
    for v in ["NCCL_HOME", "NCCL_ROOT", "CUDA_HOME", "CUDA_PATH"] {
        candidates.extend(env(v).map(|r| r.join("include/nccl.h")));
    }
    candidates.extend(
        ["/usr/include/nccl.h", "/usr/local/cuda/include/nccl.h"].map(std::path::PathBuf::from),
    );
    for v in ["RCCL_HOME", "ROCM_PATH", "HIP_PATH"] {
        candidates.extend(env(v).map(|r| r.join("include/rccl/rccl.h")));
    }
    candidates.push("/opt/rocm/include/rccl/rccl.h".into());
    let mut found = false;
    for path in candidates {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let source = path.display().to_string();
        check_prototypes(&prototypes(&text), &source, false);
        check_values(&text, &source);
        found = true;
    }
    if !found {
        eprintln!(
            "skipped: no installed nccl.h or rccl/rccl.h (NCCL_HOME, CUDA_HOME, /usr/include, \
             ROCM_PATH, /opt/rocm)"
        );
    }
}

#[test]
fn the_parsers_read_prototypes_and_enums_apart() {
    let p = prototypes(
        "/* c */ ncclResult_t  f(const void* a, /* x */ ncclComm_t* b,\n    int c);\n\
         ncclResult_t  g();\nconst char* __attribute__((visibility(\"default\"))) h(void);\n\
         typedef struct { char internal[4]; } id;\nextern \"C\" {\nint k(int *v);",
    );
    assert_eq!(
        p.get("f"),
        Some(&(
            "ncclResult_t".to_string(),
            vec!["constvoid*".into(), "ncclComm_t*".into(), "int".into()]
        ))
    );
    assert_eq!(p.get("g"), Some(&("ncclResult_t".to_string(), vec![])));
    assert_eq!(p.get("h"), Some(&("constchar*".to_string(), vec![])));
    assert_eq!(p.get("k"), Some(&("int".to_string(), vec!["int*".into()])));
    assert_eq!(p.len(), 4, "{p:?}");

    let e = enums(
        "typedef enum { a = 0, b = 0,\n c, /* two */ d = 0x10, e,\n#if X\n f = 9,\n#endif\n \
         g = 1<<(2), h } t;\ntypedef enum {\n z = -1, y } u;",
    );
    let want: Vec<(String, Option<i64>)> = [
        ("a", Some(0)),
        ("b", Some(0)),
        ("c", Some(1)),
        ("d", Some(16)),
        ("e", Some(17)),
        ("f", Some(9)),
        ("g", None),
        ("h", None),
    ]
    .map(|(n, v)| (n.to_string(), v))
    .into();
    assert_eq!(e.get("t"), Some(&want));
    assert_eq!(
        e.get("u"),
        Some(&vec![
            ("z".to_string(), Some(-1)),
            ("y".to_string(), Some(0))
        ])
    );
    assert_eq!(define("#define N 128 /* bytes */\n", "N"), Some(128));

    assert_eq!(
        rust_signature("fn(* mut NcclComm, c_int, NcclUniqueId, c_int) -> i32"),
        (
            "i32".into(),
            vec![
                "*mutNcclComm".into(),
                "c_int".into(),
                "NcclUniqueId".into(),
                "c_int".into()
            ]
        )
    );
    assert_eq!(rust_signature("fn() -> i32"), ("i32".into(), vec![]));
}
