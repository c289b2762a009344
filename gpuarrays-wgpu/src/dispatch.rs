//! Binding buffers to a kernel and launching it.
//!
//! [`BindingPlan`] turns the operands of one dispatch into storage bindings: one binding per
//! distinct (buffer, storage class), read-only unless something writes it, covering a
//! *window* of the buffer from the aligned position below its lowest byte to the word above
//! its highest. Offsets passed to the kernel are relative to the window, so binding offsets
//! only ever need the device's alignment (256), and an array larger than one binding can
//! still be processed window by window. A window larger than `max_storage_buffer_binding_size`
//! is a [`WgpuError::LimitExceeded`] naming the limit.
//!
//! [`launch`] places the parameter block in the batch's arena (`param_arena.rs`), builds the
//! bind group and records the dispatch into the pending encoder on a 2-D grid of workgroups.

use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::error::{Result, WgpuError};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::types::Class;

struct Entry<'a> {
    buffer: &'a wgpu::Buffer,
    id: u64,
    /// The bytes the buffer was allocated with, where known (not for raw staging buffers):
    /// what the operands bound from it may reach.
    len: Option<u64>,
    class: Class,
    access: Access,
    lo: u64,
    hi: u64,
}

/// The storage bindings of one dispatch.
#[derive(Default)]
pub(crate) struct BindingPlan<'a> {
    entries: Vec<Entry<'a>>,
}

/// A bound window: byte `start` and `size` of a binding.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window {
    pub start: u64,
}

impl<'a> BindingPlan<'a> {
    /// Adds bytes `lo..hi` of `buffer`, used as `class` with `access`; returns the binding
    /// index (0-based: WGSL binding `index + 1`, named `b{index + 1}`).
    pub fn add(
        &mut self,
        buffer: &'a WgpuBuffer,
        class: Class,
        access: Access,
        lo: u64,
        hi: u64,
    ) -> usize {
        let i = self.add_raw(&buffer.buffer, buffer.id, class, access, lo, hi);
        self.entries[i].len = Some(buffer.bytes as u64);
        i
    }

    /// As [`add`](Self::add) for a raw wgpu buffer with identity `id`. One buffer used as
    /// two element classes gets two bindings; if any use writes it, every binding of it is
    /// read-write (wgpu allows several read-write bindings of one buffer in a dispatch, but
    /// not a read-only binding beside a read-write one).
    pub fn add_raw(
        &mut self,
        buffer: &'a wgpu::Buffer,
        id: u64,
        class: Class,
        access: Access,
        lo: u64,
        hi: u64,
    ) -> usize {
        let writes = access == Access::ReadWrite
            || self
                .entries
                .iter()
                .any(|e| e.id == id && e.access == Access::ReadWrite);
        if writes {
            for e in self.entries.iter_mut().filter(|e| e.id == id) {
                e.access = Access::ReadWrite;
            }
        }
        let access = if writes { Access::ReadWrite } else { access };
        if let Some(i) = self
            .entries
            .iter()
            .position(|e| e.id == id && e.class == class)
        {
            let e = &mut self.entries[i];
            e.lo = e.lo.min(lo);
            e.hi = e.hi.max(hi);
            return i;
        }
        self.entries.push(Entry {
            buffer,
            id,
            len: None,
            class,
            access,
            lo,
            hi,
        });
        self.entries.len() - 1
    }

    /// A binding of its own for bytes `lo..hi` of `buffer` (never merged with another use
    /// of the buffer): for two distant windows of one buffer in one dispatch. Read-write,
    /// like every other binding of a buffer that is written.
    pub fn add_separate(
        &mut self,
        buffer: &'a WgpuBuffer,
        class: Class,
        lo: u64,
        hi: u64,
    ) -> usize {
        for e in self.entries.iter_mut().filter(|e| e.id == buffer.id) {
            e.access = Access::ReadWrite;
        }
        self.entries.push(Entry {
            buffer: &buffer.buffer,
            id: buffer.id,
            len: Some(buffer.bytes as u64),
            class,
            access: Access::ReadWrite,
            lo,
            hi,
        });
        self.entries.len() - 1
    }

    /// Class and access of each binding, in order (part of the kernel's source).
    pub fn layout(&self) -> Vec<(Class, Access)> {
        self.entries.iter().map(|e| (e.class, e.access)).collect()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The window of each binding, checked against the device's binding limits.
    pub fn windows(&self, ctx: &Context) -> Result<Vec<Window>> {
        let align = ctx.limits.min_storage_buffer_offset_alignment.max(4) as u64;
        let max = ctx.limits.max_storage_buffer_binding_size;
        if self.entries.len() + 1 > ctx.limits.max_storage_buffers_per_shader_stage as usize {
            return Err(WgpuError::LimitExceeded {
                what: format!("a kernel over {} distinct buffers", self.entries.len()),
                requested: self.entries.len() as u64 + 1,
                limit: ctx.limits.max_storage_buffers_per_shader_stage as u64,
                limit_name: "max_storage_buffers_per_shader_stage (a count, not bytes)",
                adapter: ctx.adapter_name.clone(),
                hint: "split the expression into several smaller ones (`eval` part of it first)",
            });
        }
        self.entries
            .iter()
            .map(|e| {
                // An operand past the bytes its buffer was allocated with would read (or
                // write) what the pooled buffer's previous owner left there.
                if let Some(len) = e.len.filter(|&len| e.hi > e.lo && e.hi > len.div_ceil(4) * 4) {
                    return Err(crate::error::invalid(format!(
                        "a kernel operand reaches bytes {}..{} of a buffer of {len} bytes",
                        e.lo, e.hi
                    )));
                }
                let start = e.lo / align * align;
                let size = window_size(e, start);
                if size > max {
                    return Err(WgpuError::LimitExceeded {
                        what: "one kernel operand".into(),
                        requested: size,
                        limit: max,
                        limit_name: "max_storage_buffer_binding_size",
                        adapter: ctx.adapter_name.clone(),
                        hint: "use contiguous operands (they are processed in windows) or smaller arrays",
                    });
                }
                Ok(Window { start })
            })
            .collect()
    }
}

fn window_size(e: &Entry<'_>, start: u64) -> u64 {
    // Whole elements of the binding's array type (vec4 bindings: 16 bytes).
    let unit = e.class.bytes();
    let end = e.hi.max(e.lo + 1).div_ceil(unit) * unit;
    (end - start).min(e.buffer.size() - start).max(unit)
}

/// The grid for `groups` workgroups: `(x, y)` with `x ≤ max`, `y ≤ max`.
pub(crate) fn grid(ctx: &Context, groups: u64) -> Result<(u32, u32)> {
    let max = ctx.limits.max_compute_workgroups_per_dimension.max(1) as u64;
    let x = groups.clamp(1, max);
    let y = groups.div_ceil(x).max(1);
    if y > max {
        return Err(WgpuError::LimitExceeded {
            what: format!("a dispatch of {groups} workgroups"),
            requested: groups,
            limit: max * max,
            limit_name: "max_compute_workgroups_per_dimension squared",
            adapter: ctx.adapter_name.clone(),
            hint: "use smaller arrays",
        });
    }
    Ok((x as u32, y as u32))
}

/// Compiles (or finds) `spec` and records one dispatch of `groups` workgroups with the
/// parameter block `params` and the plan's bindings; if `f64_view`, the parameter block is
/// also bound as the last storage binding (`pf`).
pub(crate) fn launch(
    ctx: &Context,
    spec: &ShaderSpec,
    params: &[u32],
    plan: &BindingPlan<'_>,
    windows: &[Window],
    f64_view: bool,
    groups: u64,
) -> Result<()> {
    if groups == 0 {
        return Ok(());
    }
    let (x, y) = grid(ctx, groups)?;
    let pipeline = ctx.pipelines.get(&ctx.device, &ctx.adapter_name, spec)?;
    let mut words = params.to_vec();
    words.resize(crate::wgsl::header::param_vec4s(params.len()) * 4, 0);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let slot = ctx.param_block(&bytes)?;
    let params_binding = || {
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &slot.buffer,
            offset: slot.offset,
            size: wgpu::BufferSize::new(slot.size),
        })
    };
    let mut entries = vec![wgpu::BindGroupEntry {
        binding: 0,
        resource: params_binding(),
    }];
    for (i, (e, w)) in plan.entries.iter().zip(windows).enumerate() {
        entries.push(wgpu::BindGroupEntry {
            binding: i as u32 + 1,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: e.buffer,
                offset: w.start,
                size: wgpu::BufferSize::new(window_size(e, w.start)),
            }),
        });
    }
    if f64_view {
        entries.push(wgpu::BindGroupEntry {
            binding: plan.len() as u32 + 1,
            resource: params_binding(),
        });
    }
    let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(&spec.label),
        layout: &pipeline.layout,
        entries: &entries,
    });
    let stamps = ctx.timing.pass();
    ctx.record(|enc| {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(&spec.label),
            timestamp_writes: stamps
                .as_ref()
                .map(|(set, i)| wgpu::ComputePassTimestampWrites {
                    query_set: set,
                    beginning_of_pass_write_index: Some(*i),
                    end_of_pass_write_index: Some(*i + 1),
                }),
        });
        pass.set_pipeline(&pipeline.pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(x, y, 1);
    });
    Ok(())
}
