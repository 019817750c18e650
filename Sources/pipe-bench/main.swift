import Foundation

exit(BenchCommand.main(CommandLine.arguments))
