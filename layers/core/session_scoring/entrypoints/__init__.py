"""Entry points other than the Lambda handlers: the operator CLI and the CloudFormation custom resource."""
