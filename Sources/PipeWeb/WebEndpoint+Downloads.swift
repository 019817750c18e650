import Foundation
import PipeCore
import PipeHTTP

#if canImport(Glibc)
    import Glibc
#endif

extension WebEndpoint {
    /// A recorded artifact as a download: a file as it is, a folder (a `.xcresult` bundle) as a tar archive.
    func download(_ run: StoredRun, path: String, viewer: WebViewer, web: WebRequest) -> HTTPResponse {
        guard run.allArtifacts.contains(where: { $0.path == path }),
            let found = ArtifactFile.find(path, in: backend.projectDirectory)
        else {
            let why =
                run.artifactsMachineElsewhere.map {
                    "its files are kept on \($0), which ran it, not on the machine serving this page"
                } ?? "it may have been pruned"
            return WebPage.message(
                404, title: "No such artifact", "run \(run.record.runID) has no artifact \(path) on disk (\(why))",
                viewer: viewer, json: web.wantsJSON)
        }
        let name = (path as NSString).lastPathComponent
        log("web: \(web.user ?? "?") from \(web.address) downloads \(path) of run \(run.record.runID)")
        switch found {
        case .file(let url, _):
            return .streamed(
                200, contentType: "application/octet-stream", headers: WebPage.downloadHeaders(fileName: name)
            ) { stream in
                defer { stream.finish() }
                guard let descriptor = ArtifactFile.open(url) else { return }
                defer { close(descriptor) }
                var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                    guard count > 0, stream.write(Array(buffer.prefix(count))) else { return }
                }
            }
        case .folder(let url):
            return .streamed(
                200, contentType: "application/x-tar", headers: WebPage.downloadHeaders(fileName: name + ".tar")
            ) { stream in
                FolderTarWriter.write(url, as: name) { stream.write($0) }
                stream.finish()
            }
        }
    }

    /// An image attached to a failing test, shown inline only when its bytes are PNG or JPEG.
    func image(_ run: StoredRun, path: String) -> HTTPResponse {
        let listed =
            run.record.layers.contains { layer in
                layer.tests.contains { extras.images(layer, $0).contains(path) }
            } || run.allArtifacts.contains { $0.path == path }
        guard listed, case .file(let url, let size)? = ArtifactFile.find(path, in: backend.projectDirectory),
            size <= Self.inlineImageBytes
        else { return .text(404, "no such image") }
        guard let descriptor = ArtifactFile.open(url) else { return .text(404, "no such image") }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let read = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard read == Int(size), let kind = ImageKind.sniff(bytes) else {
            return .text(415, "this file is not a PNG or JPEG image; it is offered only as a download")
        }
        var response = HTTPResponse(status: 200, contentType: kind.mediaType, body: bytes)
        response.headers = WebPage.pageHeaders
        try? response.headers.set("Content-Security-Policy", "sandbox; default-src 'none'")
        try? response.headers.set("Cache-Control", "private, max-age=300")
        return response
    }

    /// Screenshots larger than this are downloads only.
    static let inlineImageBytes: Int64 = 16 * 1024 * 1024
}
