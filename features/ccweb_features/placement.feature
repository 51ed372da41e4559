@PLACEMENT
Feature: Where the result object is placed
  The success or error object travels as structuredContent, as the JSON text of a text
  content block, or both (recommended). Text blocks that are not JSON objects may stand
  beside it, but every text block that is a JSON object must equal every other one and
  structuredContent. A tool that declares an outputSchema must send structuredContent, valid
  against that schema, on every result (MCP 2025-06-18 and later); text-only results are
  allowed only for a tool without one.

  Background:
    Given a conversation "alpha" with 2 user messages "input 1" to "input 2"

  @PLC-1 @PLC-2
  Scenario Outline: The result object is found where the contract allows and is consistent
    When I call the tool with arguments:
      """
      <arguments>
      """
    Then the result object is placed as the contract allows

    Examples:
      | arguments                     |
      | {"conversationId": "{alpha}"} |
      | {"limit": 0}                  |

  @PLC-3 @should
  Scenario Outline: The result object is both structured content and JSON text
    When I call the tool with arguments:
      """
      <arguments>
      """
    Then the result object is both structured content and the JSON text of a text block

    Examples:
      | arguments                     |
      | {"conversationId": "{alpha}"} |
      | {"conversationId": "!!"}      |

  @PLC-4
  Scenario Outline: A tool that declares an output schema returns structured content valid against it
    When I call the tool with arguments:
      """
      <arguments>
      """
    Then the result carries the structured content its declared output schema requires

    Examples:
      | arguments                     |
      | {"conversationId": "{alpha}"} |
      | {"conversationId": "!!"}      |
