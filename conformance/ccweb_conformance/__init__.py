"""The conformance runner for the MCP tool ccweb_list_user_inputs."""
