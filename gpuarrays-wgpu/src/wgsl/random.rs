//! The random draws in WGSL: one helper function per distribution and type computing one
//! element, printed from core's lowering (`gpuarrays_core::kernel::lowered::random`) with
//! [`super::primitives`], so the recipe of `gpuarrays_core::kernel::random` is written
//! nowhere here. What stays is how a shader thread spends the work: it computes its own
//! element only, so of a normal pair it evaluates one branch.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::Distribution;
use gpuarrays_core::kernel::lowered::{self, Prim, Value};

use super::helpers::Helpers;
use super::primitives::{needed, print_marked, statements};
use super::types::ty;

/// Registers `{name}(a0, a1, a2, a3: u32) -> T`, element `a1·2³² + a0` of a random leaf of
/// `dist` in `t` for seed `a3·2³² + a2` (core's lowering, printed), and returns its name.
/// When the element is one of two (a normal pair picked by a select), each branch computes
/// only its own element: a shader thread stays one element.
pub fn element(h: &mut Helpers, dist: Distribution, t: DType) -> String {
    let name = format!("rand_{}_{}", dist.name(), t.name());
    let block = lowered::random::element(dist, t);
    let mut args = |_: &mut Helpers, _: Value, p: Prim| match p {
        Prim::Arg(k) => format!("a{k}"),
        other => format!("/* unbound {other:?} */"),
    };
    let n = block.instrs.len();
    let r = block.results[0];
    let (mut done, mut body) = (vec![false; n], String::new());
    let mut tail = r;
    if let Prim::Select(c, x, y) = block.instrs[r as usize].op {
        let needs = |v: Value| needed(&block, &[v]);
        let (mc, mx, my) = (needs(c), needs(x), needs(y));
        let shared: Vec<bool> = (0..n).map(|i| mc[i] || (mx[i] && my[i])).collect();
        // Printed before it is registered: the helpers it calls come first.
        body += &print_marked(h, &block, ("t", &shared, &mut done), &mut args);
        let then = print_marked(h, &block, ("t", &mx, &mut done), &mut args);
        body += &format!("  if (t{c}) {{\n{then}  return t{x};\n  }}\n");
        body += &print_marked(h, &block, ("t", &my, &mut done), &mut args);
        tail = y;
    } else {
        body += &statements(h, &block, "t", &mut args);
    }
    h.raw(&name, || {
        format!(
            "fn {name}(a0: u32, a1: u32, a2: u32, a3: u32) -> {} {{\n{body}  return t{tail};\n}}\n",
            ty(t)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::trig;
    use super::*;

    /// Each element of a normal pair computes its own function only: the pair's select is
    /// an `if`, and each branch calls one of cosine and sine once.
    #[test]
    fn a_normal_element_computes_only_its_branch() {
        for t in [DType::F32, DType::F64] {
            let mut h = Helpers::default();
            let name = element(&mut h, Distribution::Normal, t);
            let (cos, sin) = (
                trig::sin_cos(&mut h, t, true),
                trig::sin_cos(&mut h, t, false),
            );
            let all = h.emit();
            let f = &all[all.find(&format!("fn {name}(")).unwrap_or(0)..];
            let f = &f[..f.find("\n}\n").unwrap_or(f.len())];
            let (then, rest) = f.split_at(f.find("  if (").unwrap_or(0));
            let (inside, after) = rest.split_at(rest.find("  }\n").unwrap_or(0));
            assert!(!then.contains(&format!("{cos}(")) && !then.contains(&format!("{sin}(")));
            assert_eq!(inside.matches(&format!("{sin}(")).count(), 1, "{f}");
            assert_eq!(after.matches(&format!("{cos}(")).count(), 1, "{f}");
            assert!(!inside.contains(&format!("{cos}(")) && !after.contains(&format!("{sin}(")));
            assert_eq!(f.matches("mulhilo(").count(), 20, "{f}");
        }
    }
}
