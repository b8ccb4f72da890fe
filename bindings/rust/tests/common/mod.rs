// SPDX-License-Identifier: BSD-3-Clause
//! Shared by the integration tests: run a closure on every rank of a
//! LocalComm group, one thread per rank.
#![allow(dead_code)]
use std::sync::Arc;
use std::thread;

use tcomm::LocalComm;

/// Runs `f(rank's handle)` on n threads; the results in rank order.
pub fn on_ranks<R, F>(n: usize, f: F) -> Vec<R>
where
    R: Send + 'static,
    F: Fn(LocalComm) -> R + Send + Sync + 'static,
{
    let f = Arc::new(f);
    let handles: Vec<_> = LocalComm::group(n)
        .expect("LocalComm::group")
        .into_iter()
        .map(|comm| {
            let f = Arc::clone(&f);
            thread::spawn(move || f(comm))
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("rank thread"))
        .collect()
}

/// 0, 1, ..., n-1 as f32 plus `base`.
pub fn ramp(n: usize, base: f32) -> Vec<f32> {
    (0..n).map(|i| base + i as f32).collect()
}
