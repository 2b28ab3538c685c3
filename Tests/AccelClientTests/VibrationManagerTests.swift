// SPDX-License-Identifier: Apache-2.0
import AccelProtocol
import Foundation
import Testing
import TestSupport
@testable import AccelClient

@Suite("VibrationManager against a scripted daemon")
struct VibrationManagerTests {
    static let hello = #"{"class":"hello","protocol":3,"version":"0.2.0","device":{"chip":"LSM6DSO","location":"fake","range":16,"rate":3330,"mode":"high-performance","resolution":16,"state":"ok"}}"#
    static func window(_ seq: Int, state: String) -> String {
        #"{"class":"vibration","t":\#(Double(seq) / 3330),"seq":\#(seq),"duration":1.0000,"rate":3330.000,"axes":{"x":{"rms":0.05,"peak":0.2,"peakToPeak":0.4,"crest":4.0,"kurtosis":3.0,"velocity":2.2,"dominant":[29.95,0.07]},"y":{"rms":0.05,"peak":0.2,"peakToPeak":0.4,"crest":4.0,"kurtosis":3.0,"velocity":2.2},"z":{"rms":0.01,"peak":0.02,"peakToPeak":0.04,"crest":2.0,"kurtosis":1.5,"velocity":0.1}},"vector":{"rms":0.07,"peak":0.3,"crest":4.2,"velocity":3.1},"band":[10.0,1000.0],"peaks":[[29.95,0.1]],"envelope":{"band":[249.8,1498.5],"peaks":[[107.4,0.02]]},"clipped":false,"state":"\#(state)"}"#
    }

    @Test("windows and the machine's changes reach their handlers in order; the watch names the windows; the latest is kept")
    func updates() throws {
        let path = scratchDirectory() + "/acceld.sock"
        let daemon = try ScriptedDaemon(path: path, visits: [
            .init(hello: Self.hello, lines: [Self.window(0, state: "off"), #"{"class":"machine","t":0.5,"state":"running","from":"off"}"#,
                                             Self.window(1665, state: "running")], holds: true),
        ])
        defer { daemon.stop() }
        let manager = VibrationManager(socketPath: path)
        let windows = Collected<UInt64>(), changes = Collected<String>()
        let windowsWanted = VibrationWatch(window: 1, overlap: 0.5, spectrumBins: 64)
        manager.startMachineUpdates(to: DispatchQueue(label: "machine")) { changes.add("\($0.from)→\($0.state)") }
        manager.startVibrationUpdates(windows: windowsWanted, to: DispatchQueue(label: "windows")) { window, error in
            #expect(error == nil)
            if let window { windows.add(window.seq) }
        }
        #expect(windows.wait(seconds: 30) { $0.count == 2 } == [0, 1665])
        #expect(changes.wait(seconds: 30) { !$0.isEmpty } == ["off→running"])
        #expect(manager.latestVibration?.state == "running" && manager.latestVibration?.x.dominant == [29.95, 0.07])
        let sent = daemon.received.first ?? []
        #expect(sent.last == Request.watch(streams: [.vibration, .machine], rate: nil, fields: .all, latency: nil, vibration: windowsWanted).json, "\(sent)")
        manager.stopVibrationUpdates()
        manager.stopMachineUpdates()
        #expect(!manager.isVibrationActive)
    }
}
