// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration

extension Daemon {
    /// SIGHUP: re-read the configuration file and apply the pipeline's
    /// tunables and the vibration analysis's machine without dropping
    /// clients (vibration windows start again). Device and socket settings need a
    /// restart; a bad file changes nothing.
    func reload() {
        guard let path = options.configurationPath else {
            logger.notice("SIGHUP: no configuration file to reload (started without --config)")
            return
        }
        notifier.notify("RELOADING=1")
        defer { notifier.notify("READY=1") }
        let fresh: Configuration
        do { fresh = try Configuration(contentsOf: path) } catch {
            logger.error("SIGHUP: \(error); keeping the running configuration")
            return
        }
        let sampler = self.sampler!
        sampler.queue.async { sampler.update(settings: fresh.motion) }
        if fresh.device != options.configuration.device || fresh.socket != options.configuration.socket {
            logger.notice("SIGHUP: [device] and [socket] changes take effect at the next restart")
        }
        hub?.vibration.reconfigure(fresh.vibration)
        options.configuration.motion = fresh.motion
        options.configuration.vibration = fresh.vibration
        logger.info("SIGHUP: pipeline tunables and [vibration] reloaded from \(path)")
    }
}
