//! Rows of `docs/bad-inputs.md`: Sizes past what memory holds, and FFT helpers.

use gpuarrays::FftNorm;

use super::*;

// ---------------------------------------------------------------------------------
// Sizes past what memory holds, and FFT helpers
// ---------------------------------------------------------------------------------

#[test]
fn reduction_whose_output_needs_more_than_half_the_address_space() {
    // No element to read, but the [2^63 + 1] output of u8 sums cannot be allocated.
    let empty = Array::<u8, _>::zeros(&cpu(), &[0, (1 << 63) + 1]).unwrap();
    expect(
        "reduction_whose_output_needs_more_than_half_the_address_space",
        empty.sum_axis(0),
    );
}

#[test]
fn fftfreq_of_usize_max_points() {
    expect(
        "fftfreq_of_usize_max_points",
        Array::<f32, _>::fftfreq(&cpu(), usize::MAX, 1.0),
    );
}

#[test]
fn fftfreq_longer_than_memory() {
    // 2^40 f64 values: 8 TiB. Refused as out of memory (it used to abort the process).
    expect(
        "fftfreq_longer_than_memory",
        Array::<f64, _>::fftfreq(&cpu(), 1 << 40, 1.0),
    );
}

#[test]
fn fftfreq_of_an_integer_type() {
    expect(
        "fftfreq_of_an_integer_type",
        Array::<i32, _>::fftfreq(&cpu(), 8, 1.0),
    );
}

#[test]
fn irfft_whose_default_length_overflows() {
    // An empty spectrum whose last axis has 2^63 + 1 bins: 2·(m − 1) does not fit.
    let spectrum = Array::<Complex64, _>::zeros(&cpu(), &[0, (1 << 63) + 1]).unwrap();
    expect(
        "irfft_whose_default_length_overflows",
        spectrum.irfft(None, 1, FftNorm::Backward),
    );
}

#[test]
fn fftshift_with_an_axis_listed_twice() {
    expect_handled("fftshift_with_an_axis_listed_twice");
    let a = Array::<i32, _>::from_vec(&cpu(), (0..5).collect()).unwrap();
    // NumPy: np.fft.fftshift(np.arange(5), axes=(0, 0)) rolls by 2 twice.
    let twice = a.fftshift(Some(&[0, 0])).unwrap();
    assert_eq!(twice.to_vec().unwrap(), [1, 2, 3, 4, 0]);
    let once = a.fftshift(Some(&[0])).unwrap();
    assert_eq!(once.to_vec().unwrap(), [3, 4, 0, 1, 2]);
    let back = twice.ifftshift(Some(&[0, 0])).unwrap();
    assert_eq!(back.to_vec().unwrap(), [0, 1, 2, 3, 4]);
}
