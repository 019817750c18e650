import Foundation
import PipeCLI

exit(PipeCommandLine.main(Array(CommandLine.arguments.dropFirst())))
