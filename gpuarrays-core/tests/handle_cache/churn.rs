//! Hot keys survive churn from one-off keys.

use super::*;

#[test]
fn hot_keys_survive_churn_of_one_off_keys() {
    const PLAN: usize = 11 << 20; // ~ one cuFFT plan
    const HOT: u64 = 4;
    const COLD_PER_ROUND: u64 = 8;
    const ROUNDS: u64 = 500;
    // A count budget, then a byte budget as the binding constraint.
    let budgets = [
        Limits::new(4, 64),
        Limits::new(4, usize::MAX).with_max_idle_bytes(20 * PLAN),
        Limits::new(1, 16).with_max_idle_bytes(14 * PLAN),
    ];
    for limits in budgets {
        let (cache, log) = logging_cache::<u64>(limits);
        let mut next_id = 0;
        let mut hot_creates = 0;
        let mut use_key = |key: u64, creates: &mut u64| {
            let lease = cache
                .get_or_create(key, || {
                    *creates += 1;
                    next_id += 1;
                    Ok::<_, ()>((
                        H {
                            id: next_id,
                            key: 0,
                        },
                        PLAN,
                    ))
                })
                .unwrap();
            drop(lease);
            let s = cache.stats();
            assert!(s.idle <= limits.max_idle, "{limits:?}: {s:?}");
            assert!(s.idle_bytes <= limits.max_idle_bytes, "{limits:?}: {s:?}");
            assert_eq!(s.checked_out, 0);
        };
        let mut cold_creates = 0;
        for round in 0..ROUNDS {
            for hot in 0..HOT {
                use_key(hot, &mut hot_creates);
            }
            for cold in 0..COLD_PER_ROUND {
                use_key(1_000 + round * COLD_PER_ROUND + cold, &mut cold_creates);
            }
        }
        // Every hot key was created once and hit on every later use.
        assert_eq!(hot_creates, HOT, "{limits:?}: hot plans rebuilt");
        assert_eq!(cold_creates, ROUNDS * COLD_PER_ROUND, "{limits:?}");
        let s = cache.stats();
        assert_eq!(s.hits, HOT * (ROUNDS - 1), "{limits:?}");
        assert!(s.hit_rate() > 0.33, "{limits:?}: {s:?}");
        assert!(
            s.evictions > 3_000,
            "{limits:?}: churn must have evicted: {s:?}"
        );
        assert_eq!(s.live as u64, s.created - s.destroyed);
        for hot in 0..HOT {
            assert_eq!(cache.idle_len(&hot), 1, "{limits:?}: hot key {hot} evicted");
        }
        let destroyed = drain(&log);
        assert_eq!(destroyed.len() as u64, s.destroyed, "{limits:?}");
        assert_eq!(
            destroyed.iter().collect::<HashSet<_>>().len(),
            destroyed.len()
        );
    }
}
