/// The shell scripts `pipe completions <shell>` prints. Each is thin: it hands the words typed so far to
/// `pipe __complete` and shows its answers (`candidate<TAB>description` lines; `:files` asks for file names), so
/// every shell completes the same things from the same command tree.
enum CompletionScripts {
    enum Shell: String, CaseIterable {
        case bash, zsh, fish
    }

    static func script(for shell: Shell) -> String {
        switch shell {
        case .bash: return bash
        case .zsh: return zsh
        case .fish: return fish
        }
    }

    static let bash = #"""
        # bash completion for pipe; install as /usr/share/bash-completion/completions/pipe,
        # or load it with: source <(pipe completions bash)
        _pipe() {
            local current="${COMP_WORDS[COMP_CWORD]}" line files=0
            COMPREPLY=()
            while IFS= read -r line; do
                if [[ $line == ":files" ]]; then
                    files=1
                else
                    COMPREPLY+=("${line%%$'\t'*}")
                fi
            done < <(command pipe __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
            if ((files)); then
                [[ $current == "=" ]] && current=""
                compopt -o filenames 2>/dev/null
                while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$current")
            fi
        }
        complete -F _pipe pipe

        """#

    static let zsh = #"""
        #compdef pipe
        # zsh completion for pipe; install as _pipe in a folder of $fpath,
        # or load it after compinit with: source <(pipe completions zsh)
        _pipe() {
            local line files=0
            local -a names descriptions
            while IFS= read -r line; do
                if [[ $line == ":files" ]]; then
                    files=1
                else
                    names+=("${line%%$'\t'*}")
                    if [[ $line == *$'\t'* ]]; then
                        descriptions+=("${line%%$'\t'*} -- ${line#*$'\t'}")
                    else
                        descriptions+=("$line")
                    fi
                fi
            done < <(command pipe __complete "${(@)words[2,CURRENT]}" 2>/dev/null)
            ((${#names})) && compadd -Q -l -d descriptions -- "${names[@]}"
            ((files)) && _files
            return 0
        }
        if [[ $funcstack[1] == _pipe ]]; then
            _pipe "$@"
        elif (($+functions[compdef])); then
            compdef _pipe pipe
        fi

        """#

    static let fish = #"""
        # fish completion for pipe; install as ~/.config/fish/completions/pipe.fish,
        # or load it with: pipe completions fish | source
        function __pipe_complete
            set -l words (commandline -opc) (commandline -ct)
            set -e words[1]
            for line in (command pipe __complete $words 2>/dev/null)
                if test "$line" = ":files"
                    __fish_complete_path (commandline -ct)
                else
                    printf '%s\n' $line
                end
            end
        end
        complete -c pipe -f -a '(__pipe_complete)'

        """#
}
