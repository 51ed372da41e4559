@PROTOCOL
Feature: MCP protocol and transports
  The implementation speaks MCP over stdio or Streamable HTTP, in the initialize era
  (2025-06-18, 2025-11-25) or the 2026-07-28 era, as negotiated. Every message it sends
  must be valid for the negotiated revision and answer the request it belongs to, and one
  bad request never ends the connection.

  @PROTO-1
  Scenario: Every message received is valid MCP for the negotiated revision
    Given a conversation "alpha" with 2 user messages "input 1" to "input 2"
    When I list the tools
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    And I call the tool with arguments:
      """
      {"limit": "x"}
      """
    And I call the tool named "no_such_tool" with no arguments
    Then every message received was valid MCP for the negotiated revision

  @PROTO-2
  Scenario: The server keeps serving after errors
    Given a conversation "alpha" with 2 user messages "input 1" to "input 2"
    When I call the tool named "no_such_tool" with no arguments
    And I call the tool with arguments:
      """
      {"limit": [1]}
      """
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}-missing"}
      """
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are "input 1" to "input 2"

  @PROTO-2 @PROTO-1
  Scenario: The server keeps serving after a message that is not JSON-RPC
    Given a conversation "alpha" with 2 user messages "input 1" to "input 2"
    When I send the raw text "{not json"
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are "input 1" to "input 2"
    And every message received was valid MCP for the negotiated revision

  @PROTO-1 @PROTO-2
  Scenario Outline: A reply to an invalid request is a JSON-RPC error that echoes the request's id
    Given a conversation "alpha" with 2 user messages "input 1" to "input 2"
    When I send the raw text "<request>"
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then every message received was valid MCP for the negotiated revision
    And the item contents are "input 1" to "input 2"

    Examples:
      | request                                                                                                 |
      | {"jsonrpc": "2.0", "id": "bad-1", "method": "no/such/method"}                                           |
      | {"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {"name": "no_such_tool", "arguments": 5}} |
      | 5                                                                                                       |
      | {"jsonrpc": "2.0"}                                                                                      |
      | {"hello": "world"}                                                                                      |

  @PROTO-1
  Scenario: No log message is sent for a request that did not ask for one
    Given a conversation "alpha" with 2 user messages "input 1" to "input 2"
    When I list the tools
    And I call the tool with arguments:
      """
      {"limit": "x"}
      """
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}-missing"}
      """
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are "input 1" to "input 2"
    And no log message came for a request that did not ask for one

  @PROTO-1
  Scenario: tools/list does not change as a side effect of other requests
    Given a conversation "alpha" with 2 user messages "input 1" to "input 2"
    When I list the tools
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    And I call the tool with arguments:
      """
      {"limit": "x"}
      """
    And I call the tool named "no_such_tool" with no arguments
    Then tools/list lists the same tools as before the calls

  @PROTO-4
  Scenario: An implementation that speaks both eras answers alike in both
    Given a conversation "alpha" with 3 user messages "input 1" to "input 3"
    When I list the tools
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "limit": 2, "maxChars": 9}
      """
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}", "limit": 0}
      """
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}-missing"}
      """
    Then every call was answered alike in both eras

  @PROTO-2
  Scenario: A request of 1 MiB is answered or refused, and the server keeps serving
    Given a conversation "alpha" with 2 user messages "input 1" to "input 2"
    When I send a tools/call request of 1024 KiB
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are "input 1" to "input 2"

  @PROTO-1 @PROTO-2
  Scenario: A method the server does not implement is a JSON-RPC error, and the server keeps serving
    Given a conversation "alpha" with 2 user messages "input 1" to "input 2"
    When I send the request "no/such/method" with no params
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then every message received was valid MCP for the negotiated revision
    And the item contents are "input 1" to "input 2"

  @PROTO-5 @should
  Scenario: Nothing is sent for a call after the client cancelled it
    Given a conversation "alpha" whose file is:
      """
      {"id": "{alpha}", "messages": [
      """
    And the source conversation is "alpha"
    When I call the tool with no arguments and cancel the call while it is in flight
    Then nothing came for the cancelled call within 500 ms of its cancellation

  @PROTO-6 @should
  Scenario: The server exits promptly once its standard input ends
    Given a conversation "alpha" with 2 user messages "input 1" to "input 2"
    And the source conversation is "alpha"
    When I call the tool with no arguments
    Then the item contents are "input 1" to "input 2"
    And the server exits within 2 s once its standard input ends
