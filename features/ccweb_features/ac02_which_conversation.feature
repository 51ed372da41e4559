@AC-2
Feature: AC-2 The source conversation by default, any conversation by ID
  Without conversationId the tool reads the conversation the agent runs in (the source
  conversation: CCWEB_SESSION_ID over stdio, the X-CCWeb-Session-Id header over HTTP).
  With conversationId it reads that conversation instead. IDs are cleaned by deleting
  every character outside [A-Za-z0-9-]; an explicit ID that cleans to nothing is an
  error and never falls back to the source.

  Background:
    Given a conversation "alpha" with the messages:
      | role | content          |
      | user | from alpha       |
    And a conversation "beta" with the messages:
      | role | content          |
      | user | from beta        |

  @SRC-1
  Scenario: No conversationId reads the source conversation
    Given the source conversation is "alpha"
    When I call the tool with no arguments
    Then the result has:
      | field          | value   |
      | conversationId | {alpha} |
      | returnedCount  | 1       |
    And the item contents are:
      | content    |
      | from alpha |

  @SRC-2
  Scenario: An explicit conversationId wins over the source conversation
    Given the source conversation is "alpha"
    When I call the tool with arguments:
      """
      {"conversationId": "{beta}"}
      """
    Then the result has:
      | field          | value  |
      | conversationId | {beta} |
    And the item contents are:
      | content   |
      | from beta |

  @SRC-2
  Scenario: An explicit conversationId works without any source conversation
    Given no source conversation is bound
    When I call the tool with arguments:
      """
      {"conversationId": "{beta}"}
      """
    Then the item contents are:
      | content   |
      | from beta |

  @SRC-3
  Scenario: No conversationId and no source conversation
    Given no source conversation is bound
    When I call the tool with no arguments
    Then the error code is "missing_source_conversation"

  @SRC-3 @SRC-4
  Scenario Outline: A source conversation that cleans to nothing counts as missing
    Given the source conversation is the raw value "<raw>"
    When I call the tool with no arguments
    Then the error code is "missing_source_conversation"

    Examples:
      | raw    |
      |        |
      | ../..  |
      | !?_* .     |

  @SRC-4
  Scenario: The source conversation ID is cleaned before lookup
    Given the source conversation is the raw value "{alpha}/../!"
    When I call the tool with no arguments
    Then the result has:
      | field          | value   |
      | conversationId | {alpha} |

  @SRC-4
  Scenario Outline: An explicit conversationId is cleaned before lookup
    When I call the tool with arguments:
      """
      {"conversationId": "<raw>"}
      """
    Then the result has:
      | field          | value   |
      | conversationId | {alpha} |
    And the item contents are:
      | content    |
      | from alpha |

    Examples:
      | raw               |
      | ../{alpha}        |
      | .{alpha}.         |
      | \\t{alpha}\\n     |
      | {alpha}/          |
      | {alpha}\\u0000    |

  @SRC-4
  Scenario: Upper-case letters in a conversation ID are kept
    Given a conversation "MixedCase" with the messages:
      | role | content    |
      | user | from mixed |
    When I call the tool with arguments:
      """
      {"conversationId": "{MixedCase}"}
      """
    Then the result has:
      | field          | value       |
      | conversationId | {MixedCase} |
    And the item contents are:
      | content    |
      | from mixed |

  @SRC-5
  Scenario Outline: An explicit conversationId that cleans to nothing never falls back to the source
    Given the source conversation is bound to another valid conversation
    When I call the tool with arguments:
      """
      {"conversationId": "<raw>"}
      """
    Then the error code is "invalid_conversation_id"

    Examples:
      | raw      |
      |          |
      | ../../   |
      | !@#$%^&* |
      | 会话      |

  @SRC-6
  Scenario: A conversation without a file is not found
    Given no conversation "ghost" exists
    When I call the tool with arguments:
      """
      {"conversationId": "{ghost}"}
      """
    Then the error code is "conversation_not_found"

  @SRC-6
  Scenario: A directory named like a conversation file is not found
    Given conversation "ghost" is a directory
    When I call the tool with arguments:
      """
      {"conversationId": "{ghost}"}
      """
    Then the error code is "conversation_not_found"

  @SRC-6
  Scenario: A named pipe named like a conversation file is not found, and the call ends
    Given conversation "pipe" is a named pipe
    When I call the tool with arguments:
      """
      {"conversationId": "{pipe}"}
      """
    Then the error code is "conversation_not_found"

  @SRC-6
  Scenario: An ID too long for the file system is not found
    When I call the tool with a conversationId of 10000 characters "a"
    Then the error code is "conversation_not_found"

  @SRC-6
  Scenario: A dangling symbolic link is not found
    Given no conversation "ghost" exists
    And conversation "dangling" is a symbolic link to "{ghost}.json"
    When I call the tool with arguments:
      """
      {"conversationId": "{dangling}"}
      """
    Then the error code is "conversation_not_found"

  @SRC-6
  Scenario Outline: A chain of symbolic links that ends nowhere is not found
    Given no conversation "ghost" exists
    And conversation "hop" is a symbolic link to "<hop>"
    And conversation "chain" is a symbolic link to "{hop}.json"
    When I call the tool with arguments:
      """
      {"conversationId": "{chain}"}
      """
    Then the error code is "conversation_not_found"

    Examples:
      | hop                         |
      | {ghost}.json                |
      | no-such-folder/{ghost}.json |
      | {hop}.json                  |

  @SRC-7
  Scenario: A symbolic link that stays inside the sessions directory is followed
    Given conversation "link" is a symbolic link to conversation "alpha"
    When I call the tool with arguments:
      """
      {"conversationId": "{link}"}
      """
    Then the result has:
      | field          | value  |
      | conversationId | {link} |
    And the item contents are:
      | content    |
      | from alpha |

  @SRC-7
  Scenario: A symbolic link that leaves the sessions directory is not followed
    Given conversation "escape" is a symbolic link to a conversation file outside the sessions directory
    When I call the tool with arguments:
      """
      {"conversationId": "{escape}"}
      """
    Then the error code is "conversation_not_found"

  @SRC-7
  Scenario: A link to an in-tree link that leaves the sessions directory is not followed
    Given conversation "escape" is a symbolic link to a conversation file outside the sessions directory
    And conversation "chain" is a symbolic link to "{escape}.json"
    When I call the tool with arguments:
      """
      {"conversationId": "{chain}"}
      """
    Then the error code is "conversation_not_found"

  @SRC-7
  Scenario Outline: A link into a folder beside the sessions directory is not followed, however alike the names
    Given a folder "evil" beside the sessions directory, named like it, holds conversation "secret" saying "secret from beside"
    And conversation "escape" is a symbolic link to "<link>"
    When I call the tool with arguments:
      """
      {"conversationId": "{escape}"}
      """
    Then the error code is "conversation_not_found"

    Examples:
      | link                                  |
      | ../{evil}/{secret}.json               |
      | {evilPath}/{secret}.json              |
      | ./../{evil}/{secret}.json             |
      | ../{sessions}/../{evil}/{secret}.json |
      | ../{evil}//{secret}.json              |

  @SRC-7
  Scenario Outline: A link that resolves to a file inside the sessions tree is followed, however it is written
    Given a folder "archive" inside the sessions directory holds conversation "gamma" saying "from the archive"
    And conversation "link" is a symbolic link to "<link>"
    When I call the tool with arguments:
      """
      {"conversationId": "{link}"}
      """
    Then the result has:
      | field          | value  |
      | conversationId | {link} |
    And the item contents are:
      | content   |
      | <content> |

    Examples:
      | link                              | content          |
      | ../{sessions}/{alpha}.json        | from alpha       |
      | ./{alpha}.json                    | from alpha       |
      | {archive}/../{alpha}.json         | from alpha       |
      | {archive}/{gamma}.json            | from the archive |
      | ./{archive}//{gamma}.json         | from the archive |
      | ../{sessions}/{archive}/{gamma}.json | from the archive |

  @SRC-7
  Scenario: A link into an in-tree folder whose name starts with two dots is followed
    Given a folder "dots" whose name starts with two dots inside the sessions directory holds conversation "gamma" saying "from the dotted folder"
    And conversation "link" is a symbolic link to "{dots}/{gamma}.json"
    When I call the tool with arguments:
      """
      {"conversationId": "{link}"}
      """
    Then the item contents are:
      | content                |
      | from the dotted folder |

  @SRC-7
  Scenario Outline: A link to a folder, the sessions folder itself included, is not a conversation
    Given a folder "archive" inside the sessions directory holds conversation "gamma" saying "from the archive"
    And conversation "folder" is a symbolic link to "<link>"
    When I call the tool with arguments:
      """
      {"conversationId": "{folder}"}
      """
    Then the error code is "conversation_not_found"

    Examples:
      | link            |
      | .               |
      | ./              |
      | ../{sessions}   |
      | ../{sessions}/  |
      | {archive}/      |
      | {archive}/../.. |
