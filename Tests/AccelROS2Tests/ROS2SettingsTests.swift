// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import Testing

/// [ros2]: ROS 2's naming rules, the namespace, the domain.
struct ROS2SettingsTests {
    @Test(arguments: ["imu/data_raw", "/diagnostics", "robot_1/imu", "_private/x"])
    func namesROS2Accepts(name: String) {
        #expect(ROS2Names.topicProblem(name) == nil)
    }

    @Test(arguments: [("", "empty"), ("imu/", "end with /"), ("imu//data", "//"), ("9imu", "begins with a digit"),
                      ("imu/data-raw", "holds '-'"), ("imu data", "holds ' '")])
    func namesROS2Refuses(name: String, said: String) throws {
        let problem = try #require(ROS2Names.topicProblem(name))
        #expect(problem.contains(said))
    }

    @Test func namespaces() {
        #expect(ROS2Names.namespaceProblem("") == nil && ROS2Names.namespaceProblem("/") == nil)
        #expect(ROS2Names.namespaceProblem("/robot1/arm") == nil)
        #expect(ROS2Names.namespaceProblem("robot1")?.contains("must begin with /") == true)
        var settings = ROS2Settings()
        #expect(settings.qualified(settings.rawTopic) == "/imu/data_raw")
        settings.namespace = "/robot1"
        #expect(settings.qualified(settings.rawTopic) == "/robot1/imu/data_raw")
        #expect(settings.qualified(settings.diagnosticsTopic) == "/diagnostics")
    }

    @Test func theDomainAsROS2ChoosesIt() throws {
        var settings = ROS2Settings()
        #expect(try settings.domain(environment: [:]) == 0)
        #expect(try settings.domain(environment: ["ROS_DOMAIN_ID": "42"]) == 42)
        #expect(throws: ROS2NameError.self) { try settings.domain(environment: ["ROS_DOMAIN_ID": "300"]) }
        settings.domainID = 7
        #expect(try settings.domain(environment: ["ROS_DOMAIN_ID": "42"]) == 7)
    }

    @Test func theSectionRefusesWhatROS2Would() throws {
        let parsed = try Configuration(parsing: "[ros2]\nnamespace = /robot1\ndomain-id = 12\nreliability = reliable\n")
        #expect(parsed.ros2.namespace == "/robot1" && parsed.ros2.domainID == 12 && parsed.ros2.reliability == .reliable)
        for bad in ["namespace = robot1", "domain-id = 233", "raw-topic = imu/9", "reliability = sometimes", "frame-id = \"\""] {
            #expect(throws: (any Error).self, "\(bad)") { try Configuration(parsing: "[ros2]\n\(bad)\n") }
        }
    }
}
