// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// How the chip model plays a trace that is not a six-axis part's own
/// (docs/TRACE-FORMAT.md): the board's axis a one-axis trace (`t,a`) was
/// measured on, and whether a trace without rotation rates comes from a
/// board that was still, so that a part's gyroscope may read zero.
public struct TracePlayback: Sendable, Equatable {
    public var axis: Axis?
    public var stillGyroscope: Bool

    public init(axis: Axis? = nil, stillGyroscope: Bool = false) {
        self.axis = axis
        self.stillGyroscope = stillGyroscope
    }
}
