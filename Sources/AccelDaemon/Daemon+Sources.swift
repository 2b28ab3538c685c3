// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelParts
import AccelProtocol
import Dispatch

// The sampler for the configured source, and what opens its INT line.
extension Daemon {
    /// The sampler for the source: the register sampler on i2c-dev or the
    /// chip model, the IIO sampler on a kernel driver.
    func makeSampler(time: TimeSource) throws -> any DeviceSampler {
        let configuration = options.configuration
        if case .iio(let name) = options.source {
            guard configuration.device.interrupt == nil else {
                throw StartError(description: "interrupt is for the chip's registers on i2c-dev: through IIO the kernel's driver owns the INT line (it is the device's trigger)", exitCode: 64)
            }
            guard options.faults.isEmpty else {
                throw StartError(description: "--fault works only with --simulate: faults are injected into the chip model", exitCode: 64)
            }
            return IIOSampler(connect: { rate in try IIOBuffer(device: try IIODevice.find(name), rate: rate) },
                              configuration: configuration.device.configuration, settings: configuration.motion, time: time)
        }
        let (connect, model) = try makeConnector(time: time)
        let sampler = Sampler(connect: connect, configuration: configuration.device.configuration,
                              settings: configuration.motion, time: time)
        sampler.realtimePriority = configuration.daemon.realtimePriority
        sampler.automaticRate = configuration.device.rate == nil
        sampler.interruptSource = try interruptSource(model: model, time: time, queue: sampler.queue)
        sampler.interruptFallback = configuration.device.interruptFallback
        let power = configuration.power
        if power.wakeOnMotion { sampler.wakeOnMotion = WakeOnMotion(stillSeconds: power.stillSeconds, threshold: power.wakeThreshold) }
        return sampler
    }

    /// What opens the INT line: the GPIO line [device] interrupt names, or
    /// the chip model's pin (`model`, with --simulate); nil without one.
    func interruptSource(model: ChipModel?, time: TimeSource, queue: DispatchQueue) throws -> (() throws -> InterruptLine)? {
        let device = options.configuration.device
        guard let interrupt = device.interrupt else { return nil }
        let pin = device.interruptPin
        if let model {
            guard interrupt == DeviceSettings.modelLine else {
                throw StartError(description: "with --simulate the INT pin is the chip model's: give --interrupt model (or interrupt = model), not \(interrupt)", exitCode: 64)
            }
            return { SimulatedInterruptLine(model: model, pin: pin, time: time, owner: queue) }
        }
        guard interrupt != DeviceSettings.modelLine else {
            throw StartError(description: "interrupt = model is the chip model's pin: it goes with --simulate; on hardware name the GPIO line (gpiochip0:17)", exitCode: 64)
        }
        let spec = try GPIOLineSpec(parsing: interrupt)
        return { try GPIOLine(spec) }
    }

    func makeConnector(time: TimeSource) throws -> (connect: () throws -> Accelerometer, model: ChipModel?) {
        switch options.source {
        case .iio:
            preconditionFailure("the IIO backend has its own sampler")
        case .i2c:
            guard options.faults.isEmpty else {
                throw StartError(description: "--fault works only with --simulate: faults are injected into the chip model", exitCode: 64)
            }
            let source = options.source, part = options.configuration.device.profile
            return ({ try source.openDriver(time: time, part: part) }, nil)
        case .simulated(let name, let playback):
            // One model for the daemon's lifetime, so reconnects find the
            // same chip (with whatever a fault did to it).
            let imperfections = ChipModel.Imperfections.board
            let part = options.configuration.device.profile ?? .lis302dl
            // A kHz trace reaches the model through the part's anti-aliasing
            // filter, at the rate configured at start.
            let rate = Double(options.configuration.device.configuration.rate)
            let loaded = try DeviceSource.motion(named: name, axis: playback.axis)
            if let notice = DeviceSource.stillNotice(loaded, part: part, playback: playback) { logger.notice("\(notice)") }
            let recorded = try DeviceSource.still(loaded, playedBy: part, playback: playback)
            if let notice = DeviceSource.resamplingNotice(recorded, rate: rate) { logger.notice("\(notice)") }
            let motion = DeviceSource.motion(recorded, sampledAt: rate)
            if let notice = DeviceSource.ignoredRotation(motion, part: part) { logger.notice("\(notice)") }
            let isTrace = motion is TraceMotion
            guard isTrace || !options.loop else {
                throw StartError(description: "--loop plays a trace file again each time it ends; \(name) is a built-in motion, which loops or runs on by itself", exitCode: 64)
            }
            let model = ChipModel(profile: part, motion: options.loop ? LoopedMotion(motion) : motion, time: time,
                                  imperfections: imperfections, location: "chip model (\(name))")
            chipModel = model
            if isTrace {
                trace = TraceInfo(name: name, start: Double(model.motionStart) / 1e9, seconds: motion.duration, loop: options.loop)
            }
            return ({ try Accelerometer(bus: model, time: time, part: part) }, model)
        }
    }
}

extension Daemon {
    /// A `device` event `trace-end` each time the simulated trace ends, on
    /// the sampler's queue, in order with its frames: it holds its last
    /// row from then on, or with --loop plays again from its start.
    func announceTraceEnds(_ trace: TraceInfo, on sampler: any DeviceSampler) {
        let timer = DispatchSource.makeTimerSource(queue: sampler.queue)
        let end = trace.start + trace.seconds
        let wait = max(end - Double(MonotonicTime.now()) / 1e9, 0)
        let message = trace.loop
            ? "the trace \(trace.name) ended after \(fixed(trace.seconds, 3)) s: it plays again from its start (--loop)"
            : "the trace \(trace.name) ended after \(fixed(trace.seconds, 3)) s: the chip model holds its last row (--loop plays it again)"
        timer.setEventHandler {
            sampler.output(.device(DeviceEvent(state: .traceEnd, message: message)))
            if !trace.loop { timer.cancel() }
        }
        let period = Int(trace.seconds * 1e9)
        timer.schedule(deadline: .now() + .nanoseconds(Int(wait * 1e9)),
                       repeating: trace.loop && period > 0 ? .nanoseconds(period) : .never, leeway: .milliseconds(1))
        timer.resume()
        timers.append(timer)
    }
}
