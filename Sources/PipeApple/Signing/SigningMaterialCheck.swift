import Foundation
import PipeBasics

/// The checks the coordinator can make on a signing layer's material before anything runs: the `.p12` opens with
/// its password, and each profile has not expired and names the `.p12`'s certificate.
public struct SigningMaterialCheck {
    /// The material as read from the layer's secrets, by secret name (for messages).
    public struct Material {
        public var p12Name: String
        public var p12: Data
        public var password: String
        public var profiles: [(name: String, bytes: Data)]

        public init(p12Name: String, p12: Data, password: String, profiles: [(name: String, bytes: Data)]) {
            self.p12Name = p12Name
            self.p12 = p12
            self.password = password
            self.profiles = profiles
        }
    }

    /// What the check found: the identity and the profiles, for the run record.
    public struct Checked: Sendable, Equatable {
        public var identity: PKCS12Identity
        public var profiles: [ProvisioningProfile]
    }

    /// Every problem found, one a line, each naming its secret and what to do; empty problems means `checked`.
    public static func check(_ material: Material, now: Date) -> Result<Checked, SigningMaterialError> {
        var problems: [String] = []
        let identity: PKCS12Identity?
        do {
            identity = try PKCS12Identity.open(material.p12, password: material.password)
        } catch {
            identity = nil
            problems.append("\(material.p12Name): \(error); export it again or fix the password secret")
        }
        if let identity, identity.notAfter < now {
            problems.append(
                "\(material.p12Name): the certificate \(identity.subject) expired on "
                    + "\(UTCTimestamp.iso8601(identity.notAfter)); export a current one")
        }
        var profiles: [ProvisioningProfile] = []
        for (name, bytes) in material.profiles {
            let profile: ProvisioningProfile
            do {
                profile = try ProvisioningProfile.read(signed: bytes, source: name)
            } catch {
                problems.append("\(error); download the profile again from the developer portal")
                continue
            }
            profiles.append(profile)
            if profile.expirationDate < now {
                problems.append(
                    "\(name): the profile '\(profile.name)' (\(profile.uuid)) expired on "
                        + "\(UTCTimestamp.iso8601(profile.expirationDate)); renew it in the developer portal")
            }
            if let identity, !profile.certificateSHA1s.contains(identity.sha1) {
                problems.append(
                    "\(name): the profile '\(profile.name)' (\(profile.uuid)) does not name the certificate in "
                        + "\(material.p12Name) (SHA-1 \(identity.sha1)); add it to the profile or use the "
                        + "certificate the profile names")
            }
        }
        if material.profiles.isEmpty { problems.append("no provisioning profile is given; name at least one") }
        guard problems.isEmpty, let identity else { return .failure(SigningMaterialError(problems: problems)) }
        return .success(Checked(identity: identity, profiles: profiles))
    }
}

/// Signing material that cannot work, found on the coordinator (exit 2).
public struct SigningMaterialError: Error, Equatable, CustomStringConvertible {
    public let problems: [String]
    public var description: String {
        "the signing material is refused before anything runs:\n  " + problems.joined(separator: "\n  ")
    }
}
