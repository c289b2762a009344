//! `einsum` for the NumPy cross-check: one and two operands, diagonals, traces, transposes,
//! sums, dot, outer, Hadamard and (batched) matrix products, implicit outputs, strided,
//! empty and 0-d operands, and the refusals (bad subscripts, lengths, ranks, types).

use gpuarrays_core::s;

use super::*;

pub fn build(rec: &mut Recorder, rng: &mut Rng) {
    for dtype in DType::ALL {
        // Float operands in [-1, 1] (compared with a tolerance); integers over their whole
        // range (products and sums wrap, as NumPy's einsum in the element type does).
        let kind = if dtype.is_integer() {
            Kind::Mixed
        } else {
            Kind::Unit
        };
        let mut arr = |rec: &mut Recorder, dims: &[usize]| {
            let v = values(rng, dtype, dims.iter().product(), kind);
            rec.array(dtype, dims, &v)
        };
        let m34 = arr(rec, &[3, 4]);
        let m45 = arr(rec, &[4, 5]);
        let sq = arr(rec, &[4, 4]);
        let big = arr(rec, &[6, 10]);
        let stepped = big.at(&s![1..;2, ..;-2]); // [3, 5], strided and reversed
        let b234 = arr(rec, &[2, 3, 4]);
        let b245 = arr(rec, &[2, 4, 5]);
        let v4 = arr(rec, &[4]);
        let v5 = arr(rec, &[5]);
        let d344 = arr(rec, &[3, 3, 4]);
        let e03 = arr(rec, &[0, 3]);
        let m35 = arr(rec, &[3, 5]);
        let m05 = arr(rec, &[0, 5]);
        let s0 = arr(rec, &[]);
        let s1 = arr(rec, &[]);
        let wide = arr(rec, &[7, 64]);
        let tall = arr(rec, &[64, 6]);
        let m50 = m05.permute(&[1, 0]);
        let e00 = e03.view(&[0..0, 0..0]);
        let other = {
            let t = if dtype == DType::F64 {
                DType::F32
            } else {
                DType::F64
            };
            let v = values(rng, t, 20, Kind::Unit);
            rec.array(t, &[4, 5], &v)
        };
        let cases: Vec<(&str, Vec<&In>)> = vec![
            ("ij,jk->ik", vec![&m34, &m45]),
            ("ij,jk", vec![&m34, &m45]),
            ("ba,ac->cb", vec![&m34, &m45]),
            ("ij,kj->ik", vec![&m35, &stepped]),
            ("bij,bjk->bik", vec![&b234, &b245]),
            ("bij,bjk", vec![&b234, &b245]),
            ("ij,j->i", vec![&m34, &v4]),
            ("i,i->", vec![&v4, &v4]),
            ("i,j->ij", vec![&v4, &v5]),
            ("i,j", vec![&v4, &v5]),
            ("ij,ij->ij", vec![&stepped, &m35]),
            ("ij,ij->", vec![&m35, &stepped]),
            ("ij,ij->ji", vec![&m35, &stepped]),
            ("iij,jk->ik", vec![&d344, &m45]),
            ("ij,kl->", vec![&m34, &m45]),
            ("ij,jk->ik", vec![&wide, &tall]),
            ("ii->i", vec![&sq]),
            ("ii", vec![&sq]),
            ("ij->ji", vec![&stepped]),
            ("ij", vec![&stepped]),
            ("ji", vec![&m34]),
            ("ij->", vec![&stepped]),
            ("ij->j", vec![&m34]),
            ("ijk->kj", vec![&b234]),
            ("iij->j", vec![&d344]),
            ("ij,jk->ik", vec![&e03, &m35]),
            ("ij,jk->ik", vec![&m50, &m05]),
            ("ii", vec![&e00]),
            (",->", vec![&s0, &s1]),
            ("->", vec![&s0]),
            ("", vec![&s1]),
            // Refusals: lengths that differ; an ellipsis (not supported); a rank that
            // differs; two types; three operands; an output subscript twice or unknown.
            ("ij,jk->ik", vec![&m34, &m35]),
            ("...j,jk->k", vec![&m34, &m45]),
            ("ijk->i", vec![&m34]),
            ("ij,jk->ik", vec![&m34, &other]),
            ("i,i,i->", vec![&v4, &v4, &v4]),
            ("ij->ii", vec![&sq]),
            ("ij->k", vec![&sq]),
        ];
        for (spec, ins) in cases {
            let raws: Vec<&RawArray<B>> = ins.iter().map(|i| &i.raw).collect();
            let r = RawArray::einsum(spec, &raws).and_then(|x| Out::raw(&x));
            let shapes: Vec<Vec<usize>> = ins.iter().map(|i| i.raw.dims().to_vec()).collect();
            let j = json!({"op": "einsum", "spec": spec});
            rec.case(
                format!("einsum/{dtype}/{spec}/{shapes:?}"),
                j,
                dtype,
                &ins,
                r,
            );
        }
    }
}
