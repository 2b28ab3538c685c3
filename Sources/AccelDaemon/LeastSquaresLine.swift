// SPDX-License-Identifier: Apache-2.0

/// The least-squares line y = intercept + slope × x through some points,
/// with the sums its standard error needs: the phase lock's fitted clock
/// (PhaseFit) and the grid through the INT line's stamps (EdgeClock).
struct LeastSquaresLine {
    let slope: Double
    let meanX: Double
    let meanY: Double
    /// Σ (x − mean x)².
    let sxx: Double

    var intercept: Double { meanY - slope * meanX }

    func value(at x: Double) -> Double { intercept + slope * x }

    /// nil without two points of different x.
    init?<Points: Collection>(_ points: Points, x: (Points.Element) -> Double, y: (Points.Element) -> Double) {
        guard points.count >= 2 else { return nil }
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + x($1) } / n
        let meanY = points.reduce(0) { $0 + y($1) } / n
        var sxy = 0.0, sxx = 0.0
        for point in points {
            sxy += (x(point) - meanX) * (y(point) - meanY)
            sxx += (x(point) - meanX) * (x(point) - meanX)
        }
        guard sxx > 0 else { return nil }
        (slope, self.meanX, self.meanY, self.sxx) = (sxy / sxx, meanX, meanY, sxx)
    }
}
