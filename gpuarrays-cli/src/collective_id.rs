//! `gpuarrays collective-id`: a fresh collective group id, as 256 hex digits, for a launcher
//! that hands the same id to every rank (`GPUARRAYS_BOOTSTRAP=env:VAR` with `VAR` set to it).
//!
//! The id is made by the collective library on the first HIP device (NCCL's id holds the
//! address rank 0's bootstrap listens on, so run this on the host of rank 0).

use crate::Status;

#[derive(Debug, clap::Args)]
pub struct CollectiveIdArgs {
    /// The HIP device whose platform makes the id.
    #[arg(long, default_value_t = 0)]
    device: usize,
}

#[cfg(feature = "hip")]
pub fn run(args: &CollectiveIdArgs) -> Status {
    use gpuarrays::hip::HipBackend;
    use gpuarrays::hip::collectives::{Communicator, bootstrap};
    let made =
        HipBackend::new(args.device).and_then(|b| Communicator::new_id(&b).map(|id| (b, id)));
    match made {
        Ok((_, id)) => {
            println!("{}", bootstrap::id_to_hex(&id));
            Status::Ok
        }
        Err(e) => {
            eprintln!("gpuarrays collective-id: {e}");
            for line in e.detail() {
                eprintln!("  {line}");
            }
            Status::Unavailable
        }
    }
}

#[cfg(not(feature = "hip"))]
pub fn run(_args: &CollectiveIdArgs) -> Status {
    eprintln!("gpuarrays collective-id: this build has no HIP backend (feature `hip`)");
    Status::Unavailable
}
