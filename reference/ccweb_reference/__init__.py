"""Reference implementation of the MCP tool ccweb_list_user_inputs."""
