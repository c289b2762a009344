//! `PeerLinks`: how each device reaches each other device's memory, decided once per ordered
//! pair.
//!
//! The first copy from device `a` to device `b` asks the platform whether `b` can reach
//! `a`'s memory directly (the copy runs on `b`'s stream and reads `a`'s memory) and, if so,
//! enables it — in the peer's context and its stream-ordered pool. Enabling is a driver call
//! that maps memory, made once and never undone (drivers cap how many peers a device maps,
//! but a host has few GPUs). Where the answer is no, or enabling fails, copies between the
//! pair go through host memory; the reason is logged once.

use crate::ids::DeviceId;
use crate::platform::Platform;
use crate::sync::Mutex;
use std::collections::HashMap;

/// How work on one device reaches another device's memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerRoute {
    /// Directly (NVLink, PCIe peer-to-peer): peer access is enabled.
    Direct,
    /// Through host memory, with the reason.
    ThroughHost(String),
}

/// The route of each ordered pair of devices asked for so far.
#[derive(Debug, Default)]
pub struct PeerLinks {
    routes: Mutex<HashMap<(DeviceId, DeviceId), PeerRoute>>,
}

impl PeerLinks {
    /// How work on `device` reaches `peer`'s memory, enabling direct access the first time
    /// the pair is asked for.
    pub fn route(&self, platform: &dyn Platform, device: DeviceId, peer: DeviceId) -> PeerRoute {
        let mut routes = self.routes.lock();
        if let Some(r) = routes.get(&(device, peer)) {
            return r.clone();
        }
        let route = match platform.can_access_peer(device, peer) {
            Ok(true) => match platform.enable_peer_access(device, peer) {
                Ok(()) => PeerRoute::Direct,
                Err(e) => PeerRoute::ThroughHost(format!("enabling peer access failed: {e}")),
            },
            Ok(false) => PeerRoute::ThroughHost(format!(
                "device {device} cannot reach device {peer}'s memory directly"
            )),
            Err(e) => PeerRoute::ThroughHost(format!("asking for peer access failed: {e}")),
        };
        match &route {
            PeerRoute::Direct => tracing::debug!(%device, %peer, "peer access enabled"),
            PeerRoute::ThroughHost(why) => {
                tracing::info!(%device, %peer, reason = %why, "copies between these devices go through the host")
            }
        }
        routes.insert((device, peer), route.clone());
        route
    }
}
