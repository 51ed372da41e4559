@ERRORS
Feature: Errors are tool results with a registered code
  A failed call is an MCP tool-execution error: isError is true and the result object is
  {"ok": false, "error": {"code", "message"}} with a code from the closed registry. A
  success never sets isError. Calling a tool that does not exist is a JSON-RPC protocol
  error (any code; -32602 is recommended), never a tool result.

  @ERR-1
  Scenario Outline: Every error is flagged and shaped the same way
    Given a conversation "alpha" with 1 user messages "input 1" to "input 1"
    And no source conversation is bound
    When I call the tool with arguments:
      """
      <arguments>
      """
    Then the result is an error with code "<code>" and a non-empty message

    Examples:
      | arguments                         | code                        |
      | {"limit": "15"}                   | invalid_arguments           |
      | {}                                | missing_source_conversation |
      | {"conversationId": "..."}         | invalid_conversation_id     |
      | {"conversationId": "{alpha}-nope"} | conversation_not_found     |

  @ERR-1 @STO-1
  Scenario: An unreadable conversation is reported with its own code
    Given a conversation "alpha" whose file is:
      """
      {"id": "{alpha}", "messages": [
      """
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the result is an error with code "conversation_unreadable" and a non-empty message

  @ERR-2
  Scenario: A success does not set isError
    Given a conversation "alpha" with 1 user messages "input 1" to "input 1"
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the call is not flagged as an error
    And the result has:
      | field | value |
      | ok    | true  |

  @ERR-3 @ERR-4 @PROTO-2
  Scenario Outline: An unknown tool is a JSON-RPC error, never a result, and the server keeps serving
    Given a conversation "alpha" with 1 user messages "input 1" to "input 1"
    When I call the tool named "<name>" with no arguments
    Then the reply is a JSON-RPC error, never a tool result
    When I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    Then the item contents are "input 1" to "input 1"
    And the unknown tool was answered with the JSON-RPC error -32602

    Examples:
      | name                     |
      | ccweb_list_user_input    |
      | CCWEB_LIST_USER_INPUTS   |
      | list_user_inputs         |
