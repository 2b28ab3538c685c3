// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// Frames and events carry `t` in CLOCK_MONOTONIC seconds, as Core Motion's
/// `timestamp` is time since boot: `WallClock.unixSeconds(ofMonotonic: t)`
/// gives a program on the same board the wall-clock instant, and
/// `WallClock.localTime(unixSeconds:)` its "14:03:07.512".
public typealias WallClock = AccelCore.WallClock
