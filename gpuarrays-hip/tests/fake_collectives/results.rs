//! Results: every layout computed as NCCL defines it, checked against values computed
//! here; from one thread in a group or one thread per rank; in place; the half types;
//! point-to-point pairs.

use super::*;

/// Rank `r`'s f32 input of `n` elements: distinct per rank and element, signs mixed.
fn input_f32(r: usize, n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| (i as f32 * 1.25 - 3.0) * if r % 2 == 0 { 1.0 } else { -0.5 } + r as f32)
        .collect()
}
fn input_i32(r: usize, n: usize) -> Vec<i32> {
    let mut v: Vec<i32> = (0..n as i32)
        .map(|i| (i - 2) * (r as i32 + 1) * 7 - r as i32)
        .collect();
    v[0] = i32::MAX - r as i32; // the sum wraps
    v
}

/// Every rank's all-reduce of f32 (Sum, Max) and i32 (Sum, Max) inputs, with the results;
/// enqueued from this thread inside a group.
fn all_reduce_both(p: &FakePlatform, ranks: &[Rank], n: usize) -> (Vec<Vec<f32>>, Vec<Vec<i32>>) {
    let mut f = Vec::new();
    let mut i = Vec::new();
    for op in [ReduceOp::Sum, ReduceOp::Max] {
        let bufs: Vec<_> = ranks
            .iter()
            .enumerate()
            .map(|(r, &rk)| {
                (
                    upload(p, rk, &f32s(&input_f32(r, n))),
                    upload(p, rk, &i32s(&input_i32(r, n))),
                )
            })
            .collect();
        p.group_start().unwrap();
        for (&rk, &(fb, ib)) in ranks.iter().zip(&bufs) {
            coll(p, rk, call(CollectiveKind::AllReduce(op), fb, fb, n)).unwrap();
            let c = CollectiveCall {
                dtype: CollectiveType::I32,
                ..call(CollectiveKind::AllReduce(op), ib, ib, n)
            };
            coll(p, rk, c).unwrap();
        }
        p.group_end().unwrap();
        for (&rk, &(fb, ib)) in ranks.iter().zip(&bufs) {
            f.push(from_f32s(&download(p, rk, fb, n * 4)));
            i.push(from_i32s(&download(p, rk, ib, n * 4)));
        }
    }
    (f, i)
}

fn expected_all_reduce(ranks: usize, n: usize) -> (Vec<Vec<f32>>, Vec<Vec<i32>>) {
    let (mut f, mut i) = (Vec::new(), Vec::new());
    for max in [false, true] {
        let fe: Vec<f32> = (0..n)
            .map(|e| {
                let xs = (0..ranks).map(|r| input_f32(r, n)[e]);
                if max {
                    xs.fold(f32::MIN, f32::max)
                } else {
                    xs.fold(0.0, |a, x| a + x)
                }
            })
            .collect();
        let ie: Vec<i32> = (0..n)
            .map(|e| {
                let xs = (0..ranks).map(|r| input_i32(r, n)[e]);
                if max {
                    xs.max().unwrap()
                } else {
                    xs.fold(0i32, i32::wrapping_add)
                }
            })
            .collect();
        f.extend(std::iter::repeat_n(fe, ranks));
        i.extend(std::iter::repeat_n(ie, ranks));
    }
    (f, i)
}

#[test]
fn all_reduce_sum_and_max_of_three_ranks_from_one_thread_in_a_group() {
    let p = fake(3);
    let ranks = ranks_grouped(&p, 3);
    let got = all_reduce_both(&p, &ranks, 6);
    assert_eq!(got, expected_all_reduce(3, 6));
    assert_eq!(p.stats().collectives_completed, 4);
    let logged = p
        .log()
        .iter()
        .filter(|op| matches!(op, FakeOp::Collective { .. }))
        .count();
    assert_eq!(logged, 12);
    assert!(p.races().is_empty(), "{:?}", p.races());
}

#[test]
fn all_reduce_from_one_thread_per_rank_without_a_group() {
    let p = fake(3);
    let id = p.collective_id().unwrap();
    let n = 5;
    let results: Vec<Vec<u8>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|r| {
                let (p, id) = (&p, &id);
                s.spawn(move || {
                    let dev = DeviceId(r);
                    let comm = p.comm_init_rank(dev, 3, id, r).unwrap();
                    let rk = Rank {
                        dev,
                        stream: p.create_stream(dev, 0).unwrap(),
                        comm,
                    };
                    let send = upload(p, rk, &f32s(&input_f32(r, n)));
                    let recv = upload(p, rk, &[0u8; 20]);
                    coll(
                        p,
                        rk,
                        call(CollectiveKind::AllReduce(ReduceOp::Sum), send, recv, n),
                    )
                    .unwrap();
                    download(p, rk, recv, n * 4)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (f, _) = expected_all_reduce(3, n);
    for got in results {
        assert_eq!(from_f32s(&got), f[0]);
    }
    assert_eq!(p.live_comms(), 3);
}

#[test]
fn all_gather_reduce_scatter_broadcast_and_reduce_layouts() {
    let p = fake(3);
    let ranks = ranks_grouped(&p, 3);
    let n = 4;
    let inputs: Vec<Vec<f32>> = (0..3).map(|r| input_f32(r, 3 * n)).collect();
    let run = |kind, count: usize, recv_len: usize| -> Vec<Vec<f32>> {
        let sentinel = f32s(&vec![-7.0; recv_len]);
        let bufs: Vec<_> = ranks
            .iter()
            .zip(&inputs)
            .map(|(&rk, x)| (upload(&p, rk, &f32s(x)), upload(&p, rk, &sentinel)))
            .collect();
        p.group_start().unwrap();
        for (&rk, &(send, recv)) in ranks.iter().zip(&bufs) {
            coll(&p, rk, call(kind, send, recv, count)).unwrap();
        }
        p.group_end().unwrap();
        let out = ranks
            .iter()
            .zip(&bufs)
            .map(|(&rk, &(_, recv))| from_f32s(&download(&p, rk, recv, recv_len * 4)));
        out.collect()
    };
    // All-gather: every rank gets rank 0's n elements, then rank 1's, then rank 2's.
    let gathered: Vec<f32> = (0..3).flat_map(|r| inputs[r][..n].to_vec()).collect();
    assert_eq!(run(CollectiveKind::AllGather, n, 3 * n), vec![gathered; 3]);
    // Reduce-scatter: rank r gets the sum of block r of every rank's 3n elements.
    let block = |r: usize| -> Vec<f32> {
        (r * n..(r + 1) * n)
            .map(|e| inputs[0][e] + inputs[1][e] + inputs[2][e])
            .collect()
    };
    let scattered = run(CollectiveKind::ReduceScatter(ReduceOp::Sum), n, n);
    assert_eq!(scattered, (0..3).map(block).collect::<Vec<_>>());
    // Broadcast from rank 1: every rank gets rank 1's n elements.
    let b = run(CollectiveKind::Broadcast { root: 1 }, n, n);
    assert_eq!(b, vec![inputs[1][..n].to_vec(); 3]);
    // Reduce (min) to rank 2: only rank 2's output changes.
    let reduced = run(
        CollectiveKind::Reduce {
            op: ReduceOp::Min,
            root: 2,
        },
        n,
        n,
    );
    let min: Vec<f32> = (0..n)
        .map(|e| inputs[0][e].min(inputs[1][e]).min(inputs[2][e]))
        .collect();
    assert_eq!(reduced, vec![vec![-7.0; n], vec![-7.0; n], min]);
    assert_eq!(p.stats().collectives_completed, 4);
}

#[test]
fn in_place_all_reduce_prod_reads_every_input_before_writing() {
    let p = fake(2);
    let ranks = ranks_grouped(&p, 2);
    let xs = [vec![1.5f32, -2.0, 3.0], vec![4.0f32, 0.5, -1.0]];
    let bufs: Vec<_> = ranks
        .iter()
        .zip(&xs)
        .map(|(&rk, x)| upload(&p, rk, &f32s(x)))
        .collect();
    for (&rk, &b) in ranks.iter().zip(&bufs) {
        coll(
            &p,
            rk,
            call(CollectiveKind::AllReduce(ReduceOp::Prod), b, b, 3),
        )
        .unwrap();
    }
    for (&rk, &b) in ranks.iter().zip(&bufs) {
        assert_eq!(from_f32s(&download(&p, rk, b, 12)), vec![6.0, -1.0, -3.0]);
    }
}

#[test]
fn half_types_sum_in_f32_and_round_once() {
    let p = fake(3);
    let ranks = ranks_grouped(&p, 3);
    // 1024 + 0.5 + 0.5: rounded at each step (ties to even) f16 stays 1024; once, 1025.
    let vals = [[1024.0f32, 1.0, -3.5], [0.5, 2.0, 0.25], [0.5, 4.0, 100.0]];
    for dtype in [CollectiveType::F16, CollectiveType::BF16] {
        let enc = |x: f32| match dtype {
            CollectiveType::F16 => f16::from_f32(x).to_bits().to_le_bytes(),
            _ => bf16::from_f32(x).to_bits().to_le_bytes(),
        };
        let dec = |b: &[u8]| -> f32 {
            let bits = u16::from_le_bytes([b[0], b[1]]);
            match dtype {
                CollectiveType::F16 => f16::from_bits(bits).to_f32(),
                _ => bf16::from_bits(bits).to_f32(),
            }
        };
        let bufs: Vec<_> = ranks
            .iter()
            .zip(&vals)
            .map(|(&rk, v)| upload(&p, rk, &v.iter().flat_map(|&x| enc(x)).collect::<Vec<_>>()))
            .collect();
        for (&rk, &b) in ranks.iter().zip(&bufs) {
            let c = CollectiveCall {
                dtype,
                ..call(CollectiveKind::AllReduce(ReduceOp::Sum), b, b, 3)
            };
            coll(&p, rk, c).unwrap();
        }
        let want: Vec<f32> = (0..3)
            .map(|e| {
                let s: f32 = vals.iter().map(|v| dec(&enc(v[e]))).sum();
                dec(&enc(s))
            })
            .collect();
        if dtype == CollectiveType::F16 {
            assert_eq!(want[0], 1025.0);
        }
        for (&rk, &b) in ranks.iter().zip(&bufs) {
            let got: Vec<f32> = download(&p, rk, b, 6).chunks(2).map(dec).collect();
            assert_eq!(got, want, "{dtype:?}");
        }
    }
}

#[test]
fn send_recv_pairs_match_in_order_per_pair() {
    let p = fake(3);
    let ranks = ranks_grouped(&p, 3);
    let data = |r: usize, k: usize| f32s(&[r as f32 * 10.0 + k as f32; 2]);
    let sends: Vec<Vec<DevicePtr>> = ranks
        .iter()
        .enumerate()
        .map(|(r, &rk)| (0..2).map(|k| upload(&p, rk, &data(r, k))).collect())
        .collect();
    let recvs: Vec<Vec<DevicePtr>> = ranks
        .iter()
        .map(|&rk| (0..2).map(|_| upload(&p, rk, &[0; 8])).collect())
        .collect();
    // A ring, twice: rank r sends to r + 1 and receives from r - 1; receives enqueued first.
    p.group_start().unwrap();
    for k in 0..2 {
        for (r, &rk) in ranks.iter().enumerate() {
            let from = (r + 2) % 3;
            coll(
                &p,
                rk,
                call(
                    CollectiveKind::Recv { peer: from },
                    DevicePtr(0),
                    recvs[r][k],
                    2,
                ),
            )
            .unwrap();
        }
        for (r, &rk) in ranks.iter().enumerate() {
            let to = (r + 1) % 3;
            coll(
                &p,
                rk,
                call(
                    CollectiveKind::Send { peer: to },
                    sends[r][k],
                    DevicePtr(0),
                    2,
                ),
            )
            .unwrap();
        }
    }
    p.group_end().unwrap();
    for (r, (&rk, recv)) in ranks.iter().zip(&recvs).enumerate() {
        for (k, &recv) in recv.iter().enumerate() {
            assert_eq!(
                download(&p, rk, recv, 8),
                data((r + 2) % 3, k),
                "rank {r}, k {k}"
            );
        }
    }
    assert_eq!(p.stats().collectives_completed, 6);
}
