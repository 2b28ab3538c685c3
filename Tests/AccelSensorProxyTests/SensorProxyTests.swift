// SPDX-License-Identifier: Apache-2.0
import AccelMotion
import AccelSensorProxy
import Testing

@Suite struct OrientationMappingTests {
    /// iio-sensor-proxy's test-orientation.c: a reading of -1 g on y is
    /// normal, -1 g on x right-up, +1 g on x left-up, +1 g on y bottom-up.
    /// Its readings are gravity (the axis pointing up reads -1 g); acceld
    /// names the axis pointing up, so each is the opposite axis's face.
    @Test func eachUprightFaceMapsToIioSensorProxysName() {
        let cases: [(DeviceOrientation, SensorProxyOrientation)] = [
            (.portrait, .normal), (.landscapeLeft, .rightUp), (.landscapeRight, .leftUp), (.portraitUpsideDown, .bottomUp),
        ]
        for (device, expected) in cases {
            #expect(SensorProxyOrientation(upright: device) == expected, "\(device)")
        }
        #expect(SensorProxyOrientation.allCases.map(\.rawValue) == ["undefined", "normal", "bottom-up", "left-up", "right-up"])
    }

    @Test func flatAndUnknownAreNotUpright() {
        for device in [DeviceOrientation.faceUp, .faceDown, .unknown] {
            #expect(SensorProxyOrientation(upright: device) == nil)
        }
    }

    @Test func lyingFlatKeepsTheLastUprightOrientation() {
        var state = ProxyState()
        _ = state.connected()
        #expect(state.reported(.landscapeRight) == [.orientation])
        #expect(state.reported(.faceUp).isEmpty)
        #expect(state.reported(.faceDown).isEmpty)
        #expect(state.orientation == .leftUp)
        // The same orientation again is no change either.
        #expect(state.reported(.landscapeRight).isEmpty)
    }
}

@Suite struct ClaimsTests {
    @Test func aPeerHoldsOneClaimHoweverOftenItClaims() {
        var claims = Claims()
        #expect(claims.claim(.accelerometer, by: ":1.5") == true)
        #expect(claims.claim(.accelerometer, by: ":1.5") == false)
        #expect(claims.count(.accelerometer) == 1)
        #expect(claims.release(.accelerometer, by: ":1.5") == true)
        #expect(!claims.wantsOrientation)
    }

    @Test func orientationIsWantedWhileAnyPeerHoldsTheAccelerometer() {
        var claims = Claims()
        claims.claim(.accelerometer, by: ":1.5")
        claims.claim(.accelerometer, by: ":1.6")
        #expect(claims.release(.accelerometer, by: ":1.5") == false)
        #expect(claims.wantsOrientation)
        #expect(claims.release(.accelerometer, by: ":1.6") == true)
        #expect(!claims.wantsOrientation)
    }

    @Test func releasingWhatWasNeverClaimedChangesNothing() {
        var claims = Claims()
        claims.claim(.accelerometer, by: ":1.5")
        let before = claims
        #expect(claims.release(.accelerometer, by: ":1.9") == false)
        #expect(claims.release(.light, by: ":1.5") == false)
        #expect(claims == before)
    }

    @Test func aPeerLeavingTheBusLosesEveryClaim() {
        var claims = Claims()
        claims.claim(.accelerometer, by: ":1.5")
        claims.claim(.light, by: ":1.5")
        claims.claim(.light, by: ":1.6")
        #expect(claims.vanished(":1.5") == [.accelerometer])
        #expect(!claims.holds(.light, ":1.5"))
        #expect(claims.holds(.light, ":1.6"))
        #expect(claims.vanished(":1.7").isEmpty)
    }
}

@Suite struct PropertiesTests {
    @Test func theAbsentSensorsReportThemselvesAbsent() {
        let state = ProxyState()
        let main = ProxyState.interface
        #expect(state.value(interface: main, property: "HasAccelerometer") == .boolean(false))
        #expect(state.value(interface: main, property: "AccelerometerOrientation") == .string("undefined"))
        #expect(state.value(interface: main, property: "HasAmbientLight") == .boolean(false))
        #expect(state.value(interface: main, property: "LightLevelUnit") == .string("lux"))
        #expect(state.value(interface: main, property: "LightLevel") == .number(0))
        #expect(state.value(interface: main, property: "HasProximity") == .boolean(false))
        #expect(state.value(interface: main, property: "ProximityNear") == .boolean(false))
        #expect(state.value(interface: ProxyState.compassInterface, property: "HasCompass") == .boolean(false))
        #expect(state.value(interface: ProxyState.compassInterface, property: "CompassHeading") == .number(-1))
        #expect(state.value(interface: main, property: "HasCompass") == nil)
        #expect(state.value(interface: main, property: "Nope") == nil)
    }

    @Test func losingAcceldClearsBothPropertiesInOneChangeAndReconnectingRestoresTheSensor() {
        var state = ProxyState()
        #expect(state.connected() == [.hasAccelerometer])
        #expect(state.connected().isEmpty)
        _ = state.reported(.portrait)
        #expect(state.disconnected() == [.hasAccelerometer, .orientation])
        #expect(state.value(interface: ProxyState.interface, property: "AccelerometerOrientation") == .string("undefined"))
        #expect(state.disconnected().isEmpty)
        #expect(state.connected() == [.hasAccelerometer])
    }
}

@Suite struct ModelTests {
    @Test func methodsOfBothInterfacesAreKnownAndNoOthers() {
        #expect(MethodCall(interface: ProxyState.interface, member: "ClaimAccelerometer") == .claim(.accelerometer))
        #expect(MethodCall(interface: ProxyState.interface, member: "ReleaseProximity") == .release(.proximity))
        #expect(MethodCall(interface: ProxyState.compassInterface, member: "ClaimCompass") == .claim(.compass))
        #expect(MethodCall(interface: ProxyState.interface, member: "ClaimCompass") == nil)
        #expect(MethodCall(interface: ProxyState.interface, member: "Frobnicate") == nil)
    }

    @Test func theFirstClaimStartsWatchingAndTheLastPeerLeavingStopsIt() {
        var model = SensorProxyModel()
        #expect(model.call(.claim(.accelerometer), from: ":1.5").log.first?.hasPrefix("orientation watched") == true)
        #expect(model.wantsOrientation)
        #expect(model.call(.claim(.accelerometer), from: ":1.6").log.isEmpty)
        #expect(model.vanished(":1.5").log.isEmpty)
        #expect(model.wantsOrientation)
        let last = model.vanished(":1.6")
        #expect(last.log.first?.contains(":1.6 left the bus") == true)
        #expect(!model.wantsOrientation)
        // A peer with no claims leaving is nothing to report.
        #expect(model.vanished(":1.9") == SensorProxyModel.Effects())
    }

    @Test func claimingTheLightChangesNothingAboutOrientation() {
        var model = SensorProxyModel()
        #expect(model.call(.claim(.light), from: ":1.5").log.isEmpty)
        #expect(!model.wantsOrientation)
    }

    @Test func acceldsUpdatesBecomePropertyChanges() {
        var model = SensorProxyModel()
        #expect(model.acceld(.connected(device: "LIS302DL")).changed == [.hasAccelerometer])
        #expect(model.acceld(.orientation(.landscapeLeft)).changed == [.orientation])
        #expect(model.acceld(.orientation(.faceUp)).changed.isEmpty)
        #expect(model.state.orientation == .rightUp)
        #expect(model.acceld(.disconnected(reason: "gone")).changed == [.hasAccelerometer, .orientation])
        // Said once: the reconnection attempts that fail change nothing.
        #expect(model.acceld(.disconnected(reason: "gone")) == SensorProxyModel.Effects())
    }

    @Test func statusSaysWhoWatches() {
        var model = SensorProxyModel()
        #expect(model.status == "acceld not reachable; orientation not watched (no claims)")
        _ = model.acceld(.connected(device: "LIS302DL"))
        _ = model.call(.claim(.accelerometer), from: ":1.5")
        _ = model.acceld(.orientation(.portrait))
        #expect(model.status == "acceld connected; orientation normal, watched for 1 claim")
    }
}
