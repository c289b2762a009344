//! The whole conformance suite on the kit backend, against the CPU reference.

use gpuarrays_conformance::{SuiteConfig, run};
use gpuarrays_example_host::HostBackend;

#[test]
fn the_host_backend_conforms() {
    let report = run(&HostBackend::new(), &SuiteConfig::quick());
    assert!(report.ok(), "{report}");
}
