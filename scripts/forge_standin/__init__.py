"""The forge stand-in: GitHub, Gitea/Forgejo and GitLab as their published contracts describe them (tests only)."""
