@AC-1
Feature: AC-1 The tool definition says what the tool does
  The model decides whether and how to call a tool from its definition alone. The
  definition must therefore carry the contract: the three optional arguments with their
  bounds and defaults, and a description that states the default conversation, the
  15 inputs, the 1,000-character budget and the purpose (checking work against the
  user's requirements).

  @TOOL-1
  Scenario: The tool is listed under its contract name
    When I list the tools
    Then the tool "ccweb_list_user_inputs" is listed

  @TOOL-2
  Scenario: The input schema declares exactly the contract's arguments
    When I list the tools
    Then the input schema of "ccweb_list_user_inputs" declares exactly these properties:
      | property       | type    | minimum | maximum | default |
      | conversationId | string  |         |         |         |
      | limit          | integer | 1       | 50      | 15      |
      | maxChars       | integer | 1       | 1000    | 1000    |
    And the input schema of "ccweb_list_user_inputs" forbids additional properties
    And the input schema of "ccweb_list_user_inputs" requires no property

  @TOOL-3
  Scenario: The description states the default, the 15 inputs, the budget and the purpose
    When I list the tools
    Then the description of "ccweb_list_user_inputs" states every fact of the contract

  @TOOL-4 @should
  Scenario: The tool is annotated as read-only
    When I list the tools
    Then the tool "ccweb_list_user_inputs" is annotated with readOnlyHint true

  @TOOL-5 @should
  Scenario: The declared output schema accepts every result the server returns
    Given a conversation "alpha" with the messages:
      | role | content |
      | user | hello   |
    When I list the tools
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}"}
      """
    And I call the tool with arguments:
      """
      {"limit": 0}
      """
    And I call the tool with arguments:
      """
      {"conversationId": "{alpha}-missing"}
      """
    Then the tool "ccweb_list_user_inputs" declares an output schema that accepts every result received

  @PROTO-3 @should
  Scenario: The tool reports the contract version it implements
    When I list the tools
    Then the tool "ccweb_list_user_inputs" reports contract version "1.0.0" in its _meta
