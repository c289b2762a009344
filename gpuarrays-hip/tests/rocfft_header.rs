//! The rocFFT FFI table (`platform/amd/rocfft.rs`) against rocFFT's published header.
//!
//! No rocFFT library exists on the build machines, so the table is checked against text:
//! `tests/data/rocfft_prototypes.h`, the declarations of `rocfft/rocfft.h` that the table
//! uses, copied verbatim with their source commit.
//!
//! Checked: every symbol of the table is declared; its return type and the number, order
//! and types of its parameters correspond (C `rocfft_status` and enums are `int`, so `i32`;
//! `size_t` is `usize`; the opaque handle typedefs are pointers; `T*` is `*mut T`, `const T*`
//! is `*const T`, `void* x[]` is `*mut *mut c_void`); every enumerator value the table uses
//! equals its position in the header's enum. Not checked: that a real librocfft exports the
//! symbols with this ABI (no library here), struct layouts (none are passed), and behaviour
//! (lengths fastest-first, strides, placement) — those need an AMD GPU.

use gpuarrays_hip::platform::amd::rocfft::{SIGNATURES, values};

const HEADER: &str = include_str!("data/rocfft_prototypes.h");

/// The header without comments, on one line.
fn header() -> String {
    let mut out = String::new();
    let mut rest = HEADER;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        rest = rest[i..].find("*/").map_or("", |j| &rest[i + j + 2..]);
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `(return type, parameter declarations)` of the function `name`.
fn prototype(text: &str, name: &str) -> Option<(String, Vec<String>)> {
    let at = text.find(&format!(" {name}("))?;
    let before = &text[..at];
    let ret = before.rsplit("ROCFFT_EXPORT").next()?.trim().to_string();
    let open = at + name.len() + 2;
    let close = open + text[open..].find(')')?;
    let params = text[open..close].trim();
    let params = if params.is_empty() {
        vec![]
    } else {
        params.split(',').map(|p| p.trim().to_string()).collect()
    };
    Some((ret, params))
}

/// The Rust type a C parameter declaration (type and name) or return type maps to.
fn rust_type(decl: &str) -> String {
    let spaced = decl.replace('*', " * ").replace("[]", " [] ");
    let mut tokens: Vec<&str> = spaced.split_whitespace().collect();
    let konst = tokens.first() == Some(&"const");
    if konst {
        tokens.remove(0);
    }
    let base = match tokens.first().copied().unwrap_or("") {
        "rocfft_status"
        | "rocfft_result_placement"
        | "rocfft_transform_type"
        | "rocfft_precision"
        | "rocfft_array_type" => "i32",
        "size_t" => "usize",
        "void" => "c_void",
        "rocfft_plan" => "RocfftPlan",
        "rocfft_plan_description" => "RocfftPlanDescription",
        "rocfft_execution_info" => "RocfftExecutionInfo",
        other => panic!("no Rust type for C type {other:?} in {decl:?}"),
    };
    let pointers = tokens.iter().filter(|t| **t == "*").count();
    let array = tokens.contains(&"[]");
    let mut t = base.to_string();
    for _ in 0..pointers {
        t = format!("{} {t}", if konst { "*const" } else { "*mut" });
    }
    if array {
        t = format!("*mut {t}");
    }
    t
}

/// A Rust type as `stringify!` writes it (`* mut usize`), in the form above (`*mut usize`).
fn normalize(t: &str) -> String {
    t.replace("* mut", "*mut")
        .replace("* const", "*const")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_entry_of_the_table_matches_the_header() {
    let text = header();
    assert!(SIGNATURES.len() >= 13, "the table lost entries");
    for (name, ret, params) in SIGNATURES {
        let (c_ret, c_params) =
            prototype(&text, name).unwrap_or_else(|| panic!("{name} is not in the header"));
        assert_eq!(normalize(ret), rust_type(&c_ret), "{name}: return type");
        assert_eq!(params.len(), c_params.len(), "{name}: parameter count");
        for (k, (rust, c)) in params.iter().zip(&c_params).enumerate() {
            assert_eq!(normalize(rust), rust_type(c), "{name}: parameter {k} ({c})");
        }
    }
}

#[test]
fn enum_values_match_the_header() {
    let text = header();
    for (enumerator, value) in values::CHECKED {
        // The enum body holding the enumerator: from the last '{' before it to the next '}'.
        let at = text
            .find(&format!("{enumerator},"))
            .unwrap_or_else(|| panic!("{enumerator} not in the header"));
        let start = text[..at].rfind('{').expect("enum body") + 1;
        let end = at + text[at..].find('}').expect("enum end");
        let names: Vec<&str> = text[start..end]
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        let position = names.iter().position(|n| n == enumerator).expect("listed");
        assert_eq!(position as i32, *value, "{enumerator}");
    }
}

#[test]
fn the_parser_reads_what_it_is_given() {
    // The checks above could pass vacuously if the parser saw nothing: spot-check it.
    let text = header();
    let (ret, params) = prototype(&text, "rocfft_execute").expect("rocfft_execute");
    assert_eq!(ret, "rocfft_status");
    assert_eq!(params.len(), 4);
    assert_eq!(rust_type(&params[1]), "*mut *mut c_void");
    assert_eq!(rust_type("const size_t* lengths"), "*const usize");
    assert_eq!(rust_type("rocfft_plan* plan"), "*mut RocfftPlan");
    assert_eq!(rust_type("const rocfft_plan plan"), "RocfftPlan");
    assert!(prototype(&text, "rocfft_not_a_function").is_none());
}
