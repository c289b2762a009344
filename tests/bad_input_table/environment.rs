//! Rows of `docs/bad-inputs.md`: Environment variables and budgets (HIP runtime configuration, `HandleCache`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use gpuarrays::handle_cache::{HandleCache, Limits};

use super::*;

// ---------------------------------------------------------------------------------
// Environment variables and budgets
// ---------------------------------------------------------------------------------

/// Row `test` must be a HIP runtime error: `r` fails with its variant and message words.
#[track_caller]
fn expect_hip<T>(test: &str, r: std::result::Result<T, gpuarrays::hip::HipError>) {
    match r {
        Ok(_) => panic!("{test}: expected an error, got Ok"),
        Err(e) => {
            let debug = format!("{e:?}");
            let variant: String = debug.chars().take_while(|c| c.is_alphanumeric()).collect();
            check_error(test, format!("HipError::{variant}"), e.to_string());
        }
    }
}

#[test]
fn stream_pool_variable_not_on_or_off() {
    let r = gpuarrays::hip::RuntimeConfig::from_values(Some("sometimes"), None);
    expect_hip("stream_pool_variable_not_on_or_off", r);
}

#[test]
fn host_staging_settings_not_understood() {
    for bad in ["chunk=0", "slots=-1", "chunk=8X", "speed=3", "fast"] {
        let r = gpuarrays::hip::memory::StagingConfig::parse(bad);
        expect_hip("host_staging_settings_not_understood", r);
    }
}

#[test]
fn max_idle_streams_not_a_number() {
    let r = gpuarrays::hip::RuntimeConfig::from_values(None, Some("many"));
    expect_hip("max_idle_streams_not_a_number", r);
}

#[test]
fn max_idle_streams_negative() {
    let r = gpuarrays::hip::RuntimeConfig::from_values(None, Some("-1"));
    expect_hip("max_idle_streams_negative", r);
}

#[test]
fn max_idle_streams_too_large() {
    let r = gpuarrays::hip::RuntimeConfig::from_values(None, Some("99999999999999999999999"));
    expect_hip("max_idle_streams_too_large", r);
}

#[test]
fn hip_platform_variable_unknown() {
    let r = gpuarrays::hip::platform::select_platform_named(Some("metal"));
    expect_hip("hip_platform_variable_unknown", r);
}

/// A cache of `u32` handles that counts destroyed handles.
fn counting_cache(limits: Limits) -> (HandleCache<u8, u32>, Arc<AtomicUsize>) {
    let destroyed = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&destroyed);
    let cache = HandleCache::new(limits, move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    (cache, destroyed)
}

#[test]
fn handle_cache_with_zero_budget() {
    expect_handled("handle_cache_with_zero_budget");
    let (cache, destroyed) = counting_cache(Limits::new(0, 64));
    drop(cache.get_or_create(1, || Ok::<_, ()>((7, 0))).unwrap());
    let s = cache.stats();
    assert_eq!((s.idle, s.evictions, s.live), (0, 1, 0), "{s:?}");
    assert_eq!(destroyed.load(Ordering::SeqCst), 1);
}

#[test]
fn handle_larger_than_the_byte_budget() {
    expect_handled("handle_larger_than_the_byte_budget");
    let (cache, destroyed) = counting_cache(Limits::new(4, 64).with_max_idle_bytes(1 << 20));
    cache.insert(1, 10, 1 << 10);
    drop(
        cache
            .get_or_create(2, || Ok::<_, ()>((20, 2 << 20)))
            .unwrap(),
    );
    assert_eq!(destroyed.load(Ordering::SeqCst), 1);
    assert_eq!(cache.idle_len(&1), 1, "the small handle stays");
    assert_eq!(cache.stats().idle_bytes, 1 << 10);
}

#[test]
fn handle_cache_budget_lowered_below_its_contents() {
    expect_handled("handle_cache_budget_lowered_below_its_contents");
    let (cache, destroyed) = counting_cache(Limits::new(4, 64));
    for key in 0..3u8 {
        cache.insert(key, u32::from(key), 0);
    }
    cache.set_max_idle(1);
    assert_eq!(destroyed.load(Ordering::SeqCst), 2);
    assert_eq!(cache.stats().idle, 1);
    assert_eq!(cache.idle_len(&2), 1, "the most recently cached one stays");
}

#[test]
fn handle_creation_fails() {
    expect_handled("handle_creation_fails");
    let (cache, _) = counting_cache(Limits::default());
    let r = cache.get_or_create(1, || Err::<(u32, usize), _>("driver said no"));
    assert_eq!(r.err(), Some("driver said no"));
    let s = cache.stats();
    assert_eq!((s.misses, s.created, s.live), (1, 0, 0), "{s:?}");
}

#[test]
fn handle_destructor_that_panics() {
    expect_handled("handle_destructor_that_panics");
    let cache: HandleCache<u8, u32> = HandleCache::new(Limits::default(), |_| {
        panic!("handle destructor failure (expected by the test)")
    });
    cache.insert(1, 10, 0);
    assert_eq!(cache.clear(), 1);
    assert_eq!(cache.stats().destroy_panics, 1);
    cache.insert(2, 20, 0);
    assert_eq!(cache.pop(&2), Some((20, 0)), "the cache is still usable");
}
