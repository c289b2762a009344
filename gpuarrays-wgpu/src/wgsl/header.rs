//! The parts every generated kernel starts with.
//!
//! **Parameters.** Sizes, offsets, strides and scalar values are not compiled into a
//! kernel: they arrive in a parameter block, binding 0, read as a uniform array of
//! `vec4<u32>` through `prm(i)` (word `i`). So one compiled kernel serves every shape of
//! its kind, and windows of buffers can start anywhere the binding alignment allows.
//!
//! **Grid.** WebGPU allows 65,535 workgroups per dimension; kernels are launched on a
//! two-dimensional grid `(x, y)` and compute their linear workgroup index as
//! `wid.x + wid.y * nwg.x`, so up to 65,535² workgroups run in one dispatch.

use super::types::Class;
use crate::pipeline::Access;

/// Threads per workgroup of the one-thread-per-element kernels.
pub const WORKGROUP: u32 = 256;

/// Words of parameter block a kernel reads: rounded up to whole `vec4`s.
pub fn param_vec4s(words: usize) -> usize {
    words.div_ceil(4).max(1)
}

/// Declarations: the enabled extensions, the parameter block (`words` u32 words), the
/// storage bindings 1..=n (`b1`, `b2`, ...) and, if `f64_view`, an f64 view of the
/// parameter block (`pf`) as binding n+1 (how f64 scalars are read without bit casts).
pub fn declarations(words: usize, storage: &[(Class, Access)], f64_view: bool) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "struct Params {{ w: array<vec4<u32>, {}> }}\n@group(0) @binding(0) var<uniform> P: Params;\n",
        param_vec4s(words)
    ));
    s.push_str("fn prm(i: u32) -> u32 { return P.w[i >> 2u][i & 3u]; }\n");
    for (i, (class, access)) in storage.iter().enumerate() {
        let mode = match access {
            Access::Read => "read",
            Access::ReadWrite => "read_write",
        };
        s.push_str(&format!(
            "@group(0) @binding({}) var<storage, {mode}> b{}: array<{}>;\n",
            i + 1,
            i + 1,
            class.wgsl()
        ));
    }
    if f64_view {
        s.push_str(&format!(
            "@group(0) @binding({}) var<storage, read> pf: array<f64>;\n",
            storage.len() + 1
        ));
    }
    s
}

/// The entry point's signature with the linear workgroup `g`, local index `lid` and
/// global thread index `t` in scope, for workgroups of `size` threads.
pub fn entry(size: u32) -> String {
    format!(
        "@compute @workgroup_size({size})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
  let g = wid.x + wid.y * nwg.x;
  let t = g * {size}u + lid;
"
    )
}
