/// Only `release` hosts may hold signing material (docs/security.md, "Trust levels"): a run whose pipeline hands a
/// layer a secret of `type: file` (a `.p12`, a provisioning profile) may use release hosts alone, and since those
/// run release code only, so must it.
public enum SigningHostRule {
    /// The layers of `pipeline` that receive signing material, each with the secrets it receives, in layer order.
    public static func signingLayers(of pipeline: Pipeline) -> [(layer: String, secrets: [String])] {
        pipeline.layers.compactMap { layer in
            let files = layer.secrets.filter {
                if case .binaryFile? = pipeline.secrets[$0] { return true }
                return false
            }
            return files.isEmpty ? nil : (layer.name, files)
        }
    }

    /// `candidates` when no layer receives signing material; else the release hosts among them. Throws a
    /// `RequestError` naming the layer, the hosts and what to do when none is a release host. `hosts` is the whole
    /// hosts file, for advice.
    public static func restrict(_ candidates: [HostConfig], for pipeline: Pipeline, hosts: [HostConfig]) throws
        -> [HostConfig]
    {
        guard let first = signingLayers(of: pipeline).first else { return candidates }
        let release = candidates.filter { $0.trust == .release }
        guard release.isEmpty else { return release }
        let secrets = first.secrets.map { "`\($0)`" }.joined(separator: ", ")
        let refused = candidates.map { "host \($0.name) is `\($0.trust.rawValue)`" }.joined(separator: ", ")
        let elsewhere = hosts.filter { $0.trust == .release }.map(\.name)
        let advice =
            elsewhere.isEmpty
            ? "mark a host `trust: release` in the hosts file (it then runs only commits reachable from project.yml's "
                + "`trusted-refs:`)"
            : "choose a release host (\(elsewhere.joined(separator: ", "))) with the pipeline's `hosts:` or --host"
        throw RequestError(
            "layer \(first.layer) receives signing material (\(secrets), type: file), which only `release` hosts may "
                + "hold; \(refused): \(advice)")
    }
}
