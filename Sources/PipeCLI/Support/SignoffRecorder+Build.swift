import ChecklistPlugin
import Foundation
import PipeCore

/// A checklist that `needs:` a layer which recorded a release build checks that build: its `app_build` is the
/// build's `CFBundleVersion` (filled in when not given, refused when another), and the sign-off records the build's
/// SHA-256, which is what `pipe verify` trusts (a `CFBundleVersion` is often reused across builds).
extension SignoffRecorder {
    static let appBuildField = "app_build"

    /// The release build `layer` checks, if it needs one; throws when the store cannot say.
    func checkedBuild(run: RunRecord, layer: String) throws(SignoffRefusal) -> ReleaseBuild? {
        guard let needs = run.layers.first(where: { $0.name == layer })?.needs, !needs.isEmpty,
            let builds = store as? ReleaseBuildStore
        else { return nil }
        do {
            return try builds.releaseBuilds(runID: run.runID).last { needs.contains($0.layer) }
        } catch {
            throw SignoffRefusal(
                layer: layer, problems: ["the release build this checklist checks cannot be read: \(error)"])
        }
    }

    /// The fields with `app_build` filled from `build`; refuses one that names another build.
    static func fields(
        _ fields: [(key: String, value: String)], boundTo build: ReleaseBuild?, layer: String, runID: String
    ) throws(SignoffRefusal) -> [(key: String, value: String)] {
        guard let build else { return fields }
        let expected = build.app.buildVersion
        let given = fields.filter { $0.key == appBuildField }.map(\.value)
        if given.isEmpty { return fields + [(key: appBuildField, value: expected)] }
        let wrong = given.filter { $0.trimmingCharacters(in: .whitespaces) != expected }
        guard wrong.isEmpty else {
            let digest = build.shipped.map { " (SHA-256 \($0.sha256))" } ?? ""
            throw SignoffRefusal(
                layer: layer,
                problems: [
                    "app_build \(wrong[0]) is not the build this checklist checks: layer \(build.layer) of run "
                        + "\(runID) built CFBundleVersion \(expected)\(digest); check that build, or leave "
                        + "app_build out to have it filled in"
                ])
        }
        return fields
    }
}
