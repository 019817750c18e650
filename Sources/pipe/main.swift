import PipeCLI
