// SPDX-License-Identifier: Apache-2.0
import CKissFFT

#if canImport(Glibc)
import Glibc
#endif

/// One complex value of a transform.
public struct Complex: Sendable, Equatable {
    public var re: Double
    public var im: Double
    public init(_ re: Double, _ im: Double) { self.re = re; self.im = im }
    public var magnitudeSquared: Double { re * re + im * im }
    public var magnitude: Double { magnitudeSquared.squareRoot() }
}

/// KissFFT's transform of a real sequence of one even length, its plan made
/// once: the positive half of the spectrum, bins 0 ... count/2, unscaled
/// (a sine of amplitude A in bin k reads A·count/2 with no window).
/// Single precision, as Debian builds the library: 24 bits of mantissa are
/// far finer than any accelerometer's 16.
public final class RealFFT {
    public let count: Int
    private let plan: kiss_fftr_cfg
    private var input: [Float]
    private var output: [kiss_fft_cpx]

    public init(count: Int) {
        precondition(count >= 4 && count % 2 == 0, "KissFFT's real transform needs an even length")
        self.count = count
        plan = kiss_fftr_alloc(Int32(count), 0, nil, nil)
        input = [Float](repeating: 0, count: count)
        output = [kiss_fft_cpx](repeating: kiss_fft_cpx(), count: count / 2 + 1)
    }

    deinit { free(UnsafeMutableRawPointer(plan)) }

    /// The spectrum of `values` (exactly `count` of them), each multiplied by
    /// `window` first when one is given.
    public func transform(_ values: some Collection<Double>, window: [Double]? = nil) -> [Complex] {
        precondition(values.count == count)
        var i = 0
        if let window {
            for value in values { input[i] = Float(value * window[i]); i += 1 }
        } else {
            for value in values { input[i] = Float(value); i += 1 }
        }
        kiss_fftr(plan, input, &output)
        return output.map { Complex(Double($0.r), Double($0.i)) }
    }
}

/// KissFFT's complex transform of one length, forward or inverse
/// (unscaled both ways: forward then inverse multiplies by `count`).
public final class ComplexFFT {
    public let count: Int
    private let plan: kiss_fft_cfg
    private var input: [kiss_fft_cpx]
    private var output: [kiss_fft_cpx]

    public init(count: Int, inverse: Bool) {
        precondition(count >= 2)
        self.count = count
        plan = kiss_fft_alloc(Int32(count), inverse ? 1 : 0, nil, nil)
        input = [kiss_fft_cpx](repeating: kiss_fft_cpx(), count: count)
        output = input
    }

    deinit { free(UnsafeMutableRawPointer(plan)) }

    public func transform(_ values: [Complex]) -> [Complex] {
        precondition(values.count == count)
        for (i, value) in values.enumerated() { input[i] = kiss_fft_cpx(r: Float(value.re), i: Float(value.im)) }
        kiss_fft(plan, input, &output)
        return output.map { Complex(Double($0.r), Double($0.i)) }
    }
}
